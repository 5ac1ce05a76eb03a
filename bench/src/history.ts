import { randomUUID } from 'node:crypto';
import { auditLedger, formatAuditReport, handleLedgerCommand } from '@mp/ledger-infrastructure';
import { DataSource } from 'typeorm';
import { Client } from 'pg';
import { newHistogram } from './measure';
import { LoadClient, jsonOf, type HttpAnswer, type MerchantCredentials } from './http-client';
import { runOpenLoop, type SendRequest } from './open-loop';
import { payInBody, type OrderIds } from './workloads';

/**
 * Seeds `count` ledger events for a merchant through the ledger's own command path: each event
 * is a pay-in credit (100,000.00 with a 2.5 % fee) handled by `handleLedgerCommand`, which
 * decides it from the locked running-balance row, appends it and moves the running balances,
 * postings and credited-order rows, exactly as a consumed PaymentOrderSucceeded would. The
 * only difference from production is that `chunkSize` commands share one database transaction
 * (each joins it), so seeding 50,000 events costs 50 commits instead of 50,000.
 *
 * Afterwards the ledger's auditor, which replays the whole event store, must agree with the
 * running balances and postings; a disagreement fails the benchmark instead of timing holds on
 * an inconsistent ledger.
 */
export async function seedLedgerHistory(ledgerDatabaseUrl: string, merchantId: string, currency: string, count: number, chunkSize = 1000): Promise<void> {
  const dataSource = new DataSource({ type: 'postgres', url: ledgerDatabaseUrl });
  await dataSource.initialize();
  try {
    for (let start = 0; start < count; start += chunkSize) {
      const end = Math.min(start + chunkSize, count);
      await dataSource.transaction(async (manager) => {
        for (let index = start; index < end; index += 1) {
          const orderId = `history-${index}`;
          const result = await handleLedgerCommand(
            { manager },
            merchantId,
            currency,
            { type: 'CreditPayIn', data: { orderId, amountMinor: 10_000_000n, feeMinor: 250_000n, reason: 'payin_succeeded' }, metadata: { now: new Date() } },
            { id: randomUUID(), correlationId: 'bench-history-seed' },
          );
          if (result.events.length === 0) throw new Error(`${merchantId}/${currency}: ${orderId} was credited before: seed a merchant nobody else writes to`);
        }
      });
    }
  } finally {
    await dataSource.destroy();
  }
  await assertLedgerAudited(ledgerDatabaseUrl);
}

/** Runs the ledger's auditor (a full replay of the event store against balances and postings) and throws on any discrepancy. */
export async function assertLedgerAudited(ledgerDatabaseUrl: string): Promise<void> {
  const connection = new Client({ connectionString: ledgerDatabaseUrl });
  await connection.connect();
  try {
    const report = await auditLedger(connection);
    if (!report.ok) throw new Error(`the ledger's auditor disagrees with the seeded history:\n${formatAuditReport(report)}`);
  } finally {
    await connection.end();
  }
}

export interface HoldTimings {
  events: number;
  samplesMs: number[];
  failures: string[];
}

/**
 * Places payout holds one after the other on the ledger's internal API (what payments calls
 * before a payout exists, with payments' service token), timing each: the ledger's own cost, without payments' timeout.
 * Stops after `samples` holds or when `budgetMs` is spent.
 */
export async function timeHolds(
  ledgerUrl: string,
  authorization: () => Promise<string>,
  merchantId: string,
  events: number,
  ids: OrderIds,
  samples: number,
  budgetMs: number,
  timeoutMs: number,
): Promise<HoldTimings> {
  const client = new LoadClient(ledgerUrl, 1);
  const deadline = Date.now() + budgetMs;
  const result: HoldTimings = { events, samplesMs: [], failures: [] };
  try {
    for (let index = 0; index < samples && Date.now() < deadline; index += 1) {
      const orderId = ids.next('hold');
      const body = Buffer.from(
        JSON.stringify({
          hold_id: `payout:${merchantId}:${orderId}`,
          merchant_id: merchantId,
          currency: 'RUB',
          amount_minor: '100000',
          fee_minor: '6500',
          reference: { kind: 'payment_order', id: orderId },
        }),
      );
      const token = await authorization();
      const started = performance.now();
      const answer = await client.send(
        'POST',
        '/internal/holds',
        { 'content-type': 'application/json', 'x-request-id': `bench-${orderId}`, authorization: token },
        body,
        timeoutMs,
      );
      const elapsed = performance.now() - started;
      if (answer.status === 201) result.samplesMs.push(elapsed);
      else result.failures.push(`${answer.status === 0 ? `no answer within ${timeoutMs} ms` : `HTTP ${answer.status}`} after ${elapsed.toFixed(0)} ms`);
      if (answer.status !== 201 && answer.status !== 0) break;
      if (answer.status === 0) break; // the ledger is still working on it: do not pile more on
    }
  } finally {
    client.close();
  }
  return result;
}

/** The pieces of the system the lag measurement drives: a merchant's pay-in, the payer page, the agent's confirmation. */
export interface PayInChain {
  gateway: LoadClient;
  agentToken: string;
}

/**
 * Creates a pay-in and asks for its payment details on the payer page (the form post that
 * assigns the agent); false when either did not work (a redirect saying no agent was free counts).
 */
export async function payInWithAgent(
  gateway: LoadClient,
  merchant: MerchantCredentials,
  orderId: string,
  amount: number,
  callbackUrl?: string,
): Promise<boolean> {
  const created = await gateway.sendSigned(merchant, 'POST', '/v2/payments/incoming', payInBody(orderId, amount, callbackUrl));
  if (created.status !== 201) return false;
  const redirectUrl = jsonOf<{ redirect_url: string }>(created)?.redirect_url;
  if (!redirectUrl) return false;
  const details = await gateway.send('POST', `${new URL(redirectUrl).pathname}/details`, { accept: 'text/html' });
  return details.status === 303 && details.location?.includes('no_agent_yet') === false;
}

/** The agent's confirmation that the payer paid: the order succeeds and the merchant is credited. */
export function agentConfirms(chain: PayInChain, merchant: MerchantCredentials, orderId: string): Promise<HttpAnswer> {
  return chain.gateway.send(
    'POST',
    `/backoffice/v1/agent/orders/${merchant.merchantId}/${orderId}/confirm`,
    { authorization: `Bearer ${chain.agentToken}`, 'content-type': 'application/json' },
    Buffer.from('{}'),
  );
}

/** A pay-in with its agent (payInWithAgent), confirmed by the agent. Resolves with the confirmation time, or null. */
export async function confirmedPayIn(chain: PayInChain, merchant: MerchantCredentials, orderId: string, amount: number): Promise<number | null> {
  if (!(await payInWithAgent(chain.gateway, merchant, orderId, amount))) return null;
  return (await agentConfirms(chain, merchant, orderId)).status === 200 ? Date.now() : null;
}

export interface LagResult {
  chainsPerSecond: number;
  confirmed: number;
  credited: number;
  /** Confirmed pay-ins not yet credited by the ledger, sampled every 500 ms during the load. */
  maxBacklog: number;
  meanBacklog: number;
  /** Payments decided the pay-in succeeded (its event's time) → the ledger recorded the credit, ms. */
  lagMs: { p50: number; p99: number; max: number } | null;
  drainMs: number;
}

/**
 * The ledger's lag behind succeeded pay-ins while W1 load runs: confirmed pay-ins at a fixed
 * rate (create, payer page, agent confirmation), the ledger's credits counted from its
 * postings every 500 ms, and afterwards each credit's recorded time against the time of the
 * PaymentOrderSucceeded event in the payments service's event store (one machine, one clock).
 */
export async function measureLedgerLag(options: {
  chain: PayInChain;
  merchants: readonly MerchantCredentials[];
  ids: OrderIds;
  ledgerDatabaseUrl: string;
  paymentsDatabaseUrl: string;
  chainsPerSecond: number;
  durationMs: number;
  background: () => Promise<unknown>;
}): Promise<LagResult> {
  const prefix = options.ids.next('lag');
  const confirmedAt = new Map<string, number>();
  const ledger = new Client({ connectionString: options.ledgerDatabaseUrl });
  await ledger.connect();
  const creditedCount = async () =>
    Number(
      (
        await ledger.query<{ count: string }>(`SELECT count(*)::text AS count FROM ledger_postings WHERE code = 'PAYIN_SETTLED' AND reference_id LIKE $1`, [
          `${prefix}-%`,
        ])
      ).rows[0].count,
    );
  const backlog: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      // Clamped: the ledger may credit a pay-in before its confirmation call has returned here.
      backlog.push(Math.max(0, confirmedAt.size - (await creditedCount())));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  let sequence = 0;
  const send: SendRequest = async () => {
    const merchant = options.merchants[sequence % options.merchants.length];
    const orderId = `${prefix}-${(sequence += 1)}`;
    const at = await confirmedPayIn(options.chain, merchant, orderId, 1000);
    if (at !== null) confirmedAt.set(orderId, at);
    return { status: at === null ? 500 : 200, ok: at !== null };
  };
  try {
    await Promise.all([
      runOpenLoop({ ratePerSecond: options.chainsPerSecond, durationMs: options.durationMs, send, record: () => undefined }),
      options.background(),
    ]);
    sampling = false;
    await sampler;
    const drainStart = Date.now();
    while ((await creditedCount()) < confirmedAt.size && Date.now() - drainStart < 30_000) await new Promise((resolve) => setTimeout(resolve, 200));
    const drainMs = Date.now() - drainStart;
    const { rows } = await ledger.query<{ reference_id: string; recorded_at: Date }>(
      `SELECT reference_id, recorded_at FROM ledger_postings WHERE code = 'PAYIN_SETTLED' AND reference_id LIKE $1`,
      [`${prefix}-%`],
    );
    const succeededAt = await succeededTimes(options.paymentsDatabaseUrl, prefix);
    const histogram = newHistogram();
    for (const row of rows) {
      const succeeded = succeededAt.get(row.reference_id);
      if (succeeded !== undefined) histogram.recordValue(Math.max(1, Math.round((row.recorded_at.getTime() - succeeded) * 1000)));
    }
    const lagMs =
      histogram.totalCount > 0
        ? { p50: histogram.getValueAtPercentile(50) / 1000, p99: histogram.getValueAtPercentile(99) / 1000, max: histogram.maxValue / 1000 }
        : null;
    histogram.destroy();
    return {
      chainsPerSecond: options.chainsPerSecond,
      confirmed: confirmedAt.size,
      credited: rows.length,
      maxBacklog: Math.max(0, ...backlog),
      meanBacklog: backlog.length > 0 ? backlog.reduce((sum, value) => sum + value, 0) / backlog.length : 0,
      lagMs,
      drainMs,
    };
  } finally {
    sampling = false;
    await ledger.end();
  }
}

/** When payments decided each of these pay-ins succeeded: the time of its PaymentOrderSucceeded event. */
async function succeededTimes(paymentsDatabaseUrl: string, prefix: string): Promise<Map<string, number>> {
  const payments = new Client({ connectionString: paymentsDatabaseUrl });
  await payments.connect();
  try {
    const { rows } = await payments.query<{ order_id: string; time: string }>(
      `SELECT envelope->'data'->>'orderId' AS order_id, envelope->>'time' AS time FROM event_store
        WHERE event_type = 'PaymentOrderSucceeded' AND envelope->'data'->>'orderId' LIKE $1`,
      [`${prefix}-%`],
    );
    return new Map(rows.map((row) => [row.order_id, Date.parse(row.time)]));
  } finally {
    await payments.end();
  }
}
