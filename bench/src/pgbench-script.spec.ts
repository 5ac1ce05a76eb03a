import { CREATE_PAYIN_SQL } from './yardstick/schema';
import { parsePgbenchLog, pgbenchCreateScript } from './pgbench-script';

describe('the pgbench mirror of the create transaction', () => {
  it('runs the yardstick’s statement with every parameter replaced', () => {
    const script = pgbenchCreateScript();
    const statement = script.split('\n').find((line) => line.startsWith('WITH inserted AS')) as string;
    expect(statement).toBeDefined();
    expect(statement).not.toMatch(/\$\d/);
    expect(statement).toContain("'pgb-' || :client_id || '-' || :n");
    expect(statement).toContain('ON CONFLICT (merchant_id, order_id) DO NOTHING');
    expect(statement.endsWith(';')).toBe(true);
    // The yardstick's statement with only its parameters replaced.
    const shape = (sql: string) => sql.replace(/\s+/g, ' ').trim();
    const [before] = shape(CREATE_PAYIN_SQL).split('$1');
    expect(statement.startsWith(before)).toBe(true);
    expect(statement).toContain("INSERT INTO outbox (topic, message_key, payload) SELECT 'payments.order.events', merchant_id || '/' || order_id, '{");
  });

  it('reads latencies from pgbench’s log, adding the schedule lag under --rate', () => {
    const log = ['0 1 1520 0 1700000000 123456', '1 1 980 0 1700000000 223456 40', '2 3 skipped 0 1700000001 10 900', ''].join('\n');
    expect(parsePgbenchLog(log)).toEqual([1520, 1020]);
  });
});
