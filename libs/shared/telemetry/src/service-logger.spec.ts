import { createPinoLogger, PrettyLines } from './service-logger';
import { runInTelemetryContext } from './telemetry-context';

/** A logger writing into an array, one parsed JSON object per line. */
function capturedLogger(): { logger: ReturnType<typeof createPinoLogger>; lines: Array<Record<string, unknown>>; raw: string[] } {
  const raw: string[] = [];
  const logger = createPinoLogger({ service: 'payments', format: 'json', destination: { write: (line: string) => void raw.push(line) } });
  return {
    logger,
    raw,
    get lines() {
      return raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

describe('service logger', () => {
  it('writes one JSON object per line: level, time, service, context, message', () => {
    const captured = capturedLogger();
    captured.logger.info({ context: 'Bootstrap' }, 'payments ready');
    expect(captured.lines).toEqual([
      { level: 'info', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), service: 'payments', context: 'Bootstrap', message: 'payments ready' },
    ]);
  });

  it('redacts authorization headers, signatures, secrets, tokens and account numbers wherever they sit', () => {
    const captured = capturedLogger();
    captured.logger.warn(
      {
        req: { headers: { authorization: 'Bearer sk_live_abc', 'x-signature': 'v1,deadbeef', 'content-type': 'application/json' } },
        headers: { Authorization: 'Basic b3BzOnB3' },
        merchant: { apiSecret: 'sec_123', webhook_secret: 'whsec_456' },
        token: 'payer-page-token',
        payout: { account_number: 'DE89370400440532013000' },
        internalServiceToken: 'svc-token',
      },
      'something happened',
    );
    const text = captured.raw.join('');
    for (const secret of ['sk_live_abc', 'deadbeef', 'b3BzOnB3', 'sec_123', 'whsec_456', 'payer-page-token', 'DE89370400440532013000', 'svc-token'])
      expect(text).not.toContain(secret);
    const [line] = captured.lines as Array<{
      req: { headers: Record<string, string> };
      merchant: Record<string, string>;
      payout: Record<string, string>;
      token: string;
    }>;
    expect(line.req.headers).toEqual({ authorization: '[Redacted]', 'x-signature': '[Redacted]', 'content-type': 'application/json' });
    expect(line.merchant).toEqual({ apiSecret: '[Redacted]', webhook_secret: '[Redacted]' });
    expect(line.payout).toEqual({ account_number: '[Redacted]' });
    expect(line.token).toBe('[Redacted]');
  });

  it('adds the request id, correlation id of the work in hand to every line, and nothing outside it', () => {
    const captured = capturedLogger();
    runInTelemetryContext({ requestId: 'req_1', correlationId: 'req_1' }, () => captured.logger.info('inside'));
    captured.logger.info('outside');
    expect(captured.lines[0]).toMatchObject({ request_id: 'req_1', correlation_id: 'req_1', message: 'inside' });
    expect(captured.lines[1]).not.toHaveProperty('correlation_id');
  });

  it('prints readable lines for LOG_FORMAT=pretty, fields after the message', () => {
    const written: string[] = [];
    const logger = createPinoLogger({ service: 'ledger', format: 'pretty', destination: new PrettyLines({ write: (text: string) => written.push(text) }) });
    runInTelemetryContext({ correlationId: 'req_9' }, () => logger.warn({ context: 'Kafka' }, 'retrying'));
    expect(written).toEqual([expect.stringMatching(/^\S+ WARN {2}\[Kafka\] retrying correlation_id=req_9\n$/)]);
  });
});
