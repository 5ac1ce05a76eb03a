import { logLevel } from 'kafkajs';
import { kafkaLogLine } from './kafka-log';

const entry = (level: logLevel, log: Record<string, unknown>) => ({
  namespace: 'Connection',
  level,
  label: 'ERROR',
  log: { timestamp: '2026-01-01T00:00:00.000Z', logger: 'kafkajs', message: '', ...log },
});

describe('kafkaLogLine', () => {
  it('logs the coordinator a fresh broker has not elected yet at info, not as an error', () => {
    const line = kafkaLogLine(
      entry(logLevel.ERROR, {
        message: '[Connection] Response FindCoordinator(key: 10, version: 2)',
        error: 'The group coordinator is not available',
        correlationId: 3,
      }),
    );
    expect(line).toEqual({
      level: 'info',
      message: '[Connection] Response FindCoordinator(key: 10, version: 2) {"error":"The group coordinator is not available","correlationId":3}',
    });
  });

  it('logs a heartbeat answered with a rebalance (a member joined or left) at info', () => {
    expect(
      kafkaLogLine(
        entry(logLevel.ERROR, { message: '[Connection] Response Heartbeat(key: 12, version: 3)', error: 'The group is rebalancing, so a rejoin is needed' }),
      ).level,
    ).toBe('info');
  });

  it('logs a request to a partition whose leadership is still moving (a topic just created) at info', () => {
    expect(
      kafkaLogLine(
        entry(logLevel.ERROR, {
          message: '[Connection] Response Produce(key: 0, version: 7)',
          error: 'This server is not the leader for that topic-partition',
        }),
      ).level,
    ).toBe('info');
  });

  it('keeps every other error an error, with its fields', () => {
    expect(
      kafkaLogLine(entry(logLevel.ERROR, { message: 'Crash: KafkaJSNumberOfRetriesExceeded: The group coordinator is not available', groupId: 'g' })),
    ).toEqual({
      level: 'error',
      message: 'Crash: KafkaJSNumberOfRetriesExceeded: The group coordinator is not available {"groupId":"g"}',
    });
    expect(kafkaLogLine(entry(logLevel.ERROR, { message: 'Response Produce', error: 'Broker: Message size too large' })).level).toBe('error');
  });

  it('maps warnings and information to their levels', () => {
    expect(kafkaLogLine(entry(logLevel.WARN, { message: 'w' }))).toEqual({ level: 'warn', message: 'w' });
    expect(kafkaLogLine(entry(logLevel.INFO, { message: 'i' }))).toEqual({ level: 'info', message: 'i' });
  });
});

describe('a consumer restarted after a settling answer', () => {
  it("logs kafkajs's crash on a loading coordinator, and its restart line, as warnings", () => {
    const crash = entry(logLevel.ERROR, {
      message: "Crash: KafkaJSProtocolError: The coordinator is loading and hence can't process requests for this group",
      groupId: 'ledger.payment-events',
    });
    expect(kafkaLogLine(crash).level).toBe('warn');
    expect(kafkaLogLine(entry(logLevel.ERROR, { message: 'Restarting the consumer in 200ms', retryTime: 200 })).level).toBe('warn');
  });

  it('keeps a crash on anything else an error', () => {
    expect(kafkaLogLine(entry(logLevel.ERROR, { message: 'Crash: KafkaJSNonRetriableError: Topic authorization failed' })).level).toBe('error');
  });
});
