import { dueRange, intendedSendTime, runClosedLoop, runOpenLoop, scheduledCount, type LoopSample } from './open-loop';

describe('open-loop schedule', () => {
  it('spaces requests evenly from the start at the given rate', () => {
    expect([0, 1, 2, 10].map((index) => intendedSendTime(1000, 200, index))).toEqual([1000, 1005, 1010, 1050]);
  });

  it('sends rate × duration requests, none for a zero rate or duration', () => {
    expect(scheduledCount(50, 2000)).toBe(100);
    expect(scheduledCount(3, 1500)).toBe(4);
    expect(scheduledCount(0, 1000)).toBe(0);
    expect(scheduledCount(10, 0)).toBe(0);
  });

  it('releases every request whose intended time has come, and only those', () => {
    expect(dueRange(0, 100, 0, 1000, 0)).toEqual({ fromIndex: 0, toIndex: 1 });
    expect(dueRange(0, 100, 1, 1000, 9.9)).toEqual({ fromIndex: 1, toIndex: 1 });
    expect(dueRange(0, 100, 1, 1000, 25)).toEqual({ fromIndex: 1, toIndex: 3 });
    expect(dueRange(0, 100, 3, 5, 10_000)).toEqual({ fromIndex: 3, toIndex: 5 });
  });

  it('measures latency from the intended send time, so a stalled server shows in every request queued behind it', async () => {
    let clock = 0;
    const samples: LoopSample[] = [];
    // A server that answers nothing until t = 100 ms, then everything at once.
    const stalled: Array<() => void> = [];
    const run = runOpenLoop({
      ratePerSecond: 100,
      durationMs: 50,
      now: () => clock,
      send: () => new Promise((resolve) => stalled.push(() => resolve({ status: 201, ok: true }))),
      record: (sample) => samples.push(sample),
    });
    while (stalled.length < 5) {
      clock += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    clock = 102;
    stalled.forEach((answer) => answer());
    const summary = await run;
    expect(summary).toMatchObject({ scheduled: 5, sent: 5, completed: 5, skipped: 0 });
    // Intended at 2, 12, 22, 32 and 42 ms; all answered at 102 ms.
    expect(samples.map((sample) => sample.latencyMicros).sort((a, b) => b - a)).toEqual([100_000, 90_000, 80_000, 70_000, 60_000]);
  });

  it('hands each request its intended send time, so an effect seen later can be timed from it too', async () => {
    let clock = 0;
    const intended: number[] = [];
    await runOpenLoop({
      ratePerSecond: 100,
      durationMs: 30,
      now: () => (clock += 4),
      send: async (_index, intendedAtMs) => {
        intended.push(intendedAtMs);
        return { status: 200, ok: true };
      },
      record: () => undefined,
    });
    // Started at 4 + 2 ms, one every 10 ms, whenever the loop actually got to them.
    expect(intended).toEqual([6, 16, 26]);
  });

  it('counts requests it could not send as failures with their latency so far', async () => {
    let clock = 0;
    const samples: LoopSample[] = [];
    const run = runOpenLoop({
      ratePerSecond: 1000,
      durationMs: 3,
      maxInFlight: 1,
      now: () => (clock += 0.5),
      send: () => new Promise(() => undefined),
      record: (sample) => samples.push(sample),
    });
    const summary = await Promise.race([run, new Promise<null>((resolve) => setTimeout(() => resolve(null), 200))]);
    expect(summary).toBeNull(); // the one sent request never answers
    expect(samples.filter((sample) => !sample.outcome.ok)).toHaveLength(2);
  });
});

describe('closed loop', () => {
  it('keeps each connection busy with one request at a time until the duration is over', async () => {
    let clock = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const summary = await runClosedLoop({
      connections: 3,
      durationMs: 10,
      now: () => clock,
      send: async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        clock += 1;
        inFlight -= 1;
        return { status: 200, ok: true };
      },
      record: () => undefined,
    });
    expect(maxInFlight).toBe(3);
    expect(summary.completed).toBeGreaterThanOrEqual(10);
    expect(summary.completed).toBe(summary.sent);
  });
});
