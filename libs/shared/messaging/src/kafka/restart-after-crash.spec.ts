import { restartAfterCrash } from './restart-after-crash';

describe('restartAfterCrash (a consumer kafkajs will not restart)', () => {
  const quick = { startingDelayMs: 1, maxDelayMs: 5 };

  it('starts the consumer again, trying until the broker is back', async () => {
    let attempts = 0;
    const lines: string[] = [];
    const restarted = await restartAfterCrash({
      ...quick,
      signal: new AbortController().signal,
      log: (line) => lines.push(line),
      start: async () => {
        attempts += 1;
        if (attempts < 4) throw new Error('Connection error: connect ECONNREFUSED');
      },
    });
    expect(restarted).toBe(true);
    expect(attempts).toBe(4);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('ECONNREFUSED');
  });

  it('gives up once the subscription stops, without another attempt', async () => {
    const stopping = new AbortController();
    let attempts = 0;
    const restarted = await restartAfterCrash({
      ...quick,
      signal: stopping.signal,
      log: () => undefined,
      start: async () => {
        attempts += 1;
        if (attempts === 2) stopping.abort();
        throw new Error('broker away');
      },
    });
    expect(restarted).toBe(false);
    expect(attempts).toBe(2);
  });

  it('does nothing for a subscription already stopped', async () => {
    const stopped = new AbortController();
    stopped.abort();
    let attempts = 0;
    const restarted = await restartAfterCrash({ ...quick, signal: stopped.signal, log: () => undefined, start: async () => void (attempts += 1) });
    expect(restarted).toBe(false);
    expect(attempts).toBe(0);
  });
});
