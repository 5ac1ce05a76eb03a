import { CREATE_PAYIN_SQL } from './yardstick/schema';

export const PGBENCH = '/usr/lib/postgresql/15/bin/pgbench';
/** pgbench's merchant: its own, so its orders never meet the yardstick's. */
const PGBENCH_MERCHANT = 'mch_pgbench000000000000000000';

/**
 * The yardstick's create statement as a pgbench script: the same SQL with the parameters
 * replaced by pgbench variables and literals of the same shape (a fresh order id per
 * transaction from a 63-bit random number, an amount inside the catalog's limits, the fee at
 * 2.5 %, a payload of the same size).
 */
export function pgbenchCreateScript(): string {
  const payload = JSON.stringify({
    type: 'IncomingPaymentCreated',
    merchantId: PGBENCH_MERCHANT,
    orderId: 'pgb-0000000000000000000',
    amountMinor: '150050',
    feeMinor: '3751',
    currency: 'RUB',
    occurredAt: new Date().toISOString(),
  });
  const parameters: Record<string, string> = {
    $1: `'${PGBENCH_MERCHANT}'`,
    $2: `'pgb-' || :client_id || '-' || :n`,
    $3: ':amount',
    $4: ':fee',
    $5: `'RUB'`,
    $6: `'RU'`,
    $7: `'https://shop.example/callbacks'`,
    $8: `'token-' || :n`,
    $9: `'${payload}'`,
  };
  const sql = CREATE_PAYIN_SQL.replace(/\$\d\b/g, (parameter) => parameters[parameter])
    .replace(/\s+/g, ' ')
    .trim();
  return ['\\set n random(1, 9000000000000000000)', '\\set amount random(10000, 50000000)', '\\set fee :amount * 250 / 10000', `${sql};`, ''].join('\n');
}

/**
 * pgbench's per-transaction log: `client_id transaction_no time script_no time_epoch time_us [schedule_lag]`;
 * time is the transaction's duration in µs, schedule_lag (with --rate) how late it started, so
 * their sum is the latency from the intended start, like the open-loop generator's.
 */
export function parsePgbenchLog(text: string): number[] {
  const latencies: number[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 6 || fields[2] === 'skipped') continue;
    latencies.push(Number(fields[2]) + (fields.length >= 7 ? Number(fields[6]) : 0));
  }
  return latencies;
}
