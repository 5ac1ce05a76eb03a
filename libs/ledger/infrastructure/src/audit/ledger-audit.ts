import {
  foldLedger,
  LEDGER_ACCOUNTS,
  MERCHANT_ACCOUNTS,
  sumPostings,
  zeroBalances,
  type LedgerAccount,
  type LedgerState,
  type Posting,
} from '@mp/ledger-domain';
import { auditConversions } from './conversion-audit';
import type { MessageEnvelope } from '@mp/shared-messaging';
import { ledgerEvents } from '../commands/ledger.stream';

/** The one thing the auditor needs from a database connection (a pg Client fits). */
export interface AuditConnection {
  query<Row>(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

export interface LedgerAuditReport {
  ok: boolean;
  ledgers: number;
  postings: number;
  events: number;
  discrepancies: string[];
  /** Per currency: every account's total over all merchants (credits − debits), as decimal strings. */
  totalsByCurrency: Record<string, Record<LedgerAccount, string>>;
}

type Balances = Record<LedgerAccount, bigint>;

interface LedgerFacts {
  merchantId: string;
  currency: string;
  row?: { balances: Balances; version: number };
  fromPostings?: Balances;
  pendingHoldsInProjection?: bigint;
  adjustmentsTotal?: bigint;
  fromEvents?: { state: LedgerState; version: number; postings: Map<string, Posting> } | { error: string };
}

const zero = (): Balances => zeroBalances();
const keyOf = (merchantId: string, currency: string) => JSON.stringify([merchantId, currency]);

/**
 * Recomputes every ledger from first principles and compares the three records of it: the
 * balances projection, the postings table and a fold of the event store. Checks, per merchant
 * and currency: every running balance (the rows commands decide from) = Σ postings = fold of
 * events; the postings table holds exactly the events' postings; the hold and credited-order
 * rows are exactly the events' holds and credits; frozen = open holds (amount + fee); deposit =
 * Σ operator adjustments; no merchant account below zero. Globally: Σ signed postings = 0 per currency over all accounts,
 * and posting ids are unique. Runs in one REPEATABLE READ READ ONLY transaction, so a live
 * service cannot make it see half a command.
 */
export async function auditLedger(connection: AuditConnection): Promise<LedgerAuditReport> {
  await connection.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    return await audit(connection);
  } finally {
    await connection.query('ROLLBACK');
  }
}

async function audit(connection: AuditConnection): Promise<LedgerAuditReport> {
  const discrepancies: string[] = [];
  const ledgers = new Map<string, LedgerFacts>();
  const factsOf = (merchantId: string, currency: string): LedgerFacts => {
    const key = keyOf(merchantId, currency);
    let facts = ledgers.get(key);
    if (!facts) ledgers.set(key, (facts = { merchantId, currency }));
    return facts;
  };

  // Every account's running balance: the commands decide from these, so each must equal both
  // the postings and the events.
  const balanceRows = await connection.query<Record<LedgerAccount, string> & { merchant_id: string; currency: string; stream_version: number }>(
    `SELECT merchant_id, currency, settlement_available::text, settlement_frozen::text, deposit::text, fee_revenue::text, clearing::text, fx::text, stream_version FROM ledger_balances WHERE stream_version > 0`,
  );
  for (const row of balanceRows.rows) {
    const balances = Object.fromEntries(LEDGER_ACCOUNTS.map((account) => [account, BigInt(row[account])])) as Balances;
    factsOf(row.merchant_id, row.currency).row = { balances, version: row.stream_version };
  }

  // Σ per account from the postings table: each posting credits one account and debits another.
  const sums = await connection.query<{ merchant_id: string; currency: string; account: LedgerAccount; net: string; postings: string }>(
    `SELECT merchant_id, currency, account, sum(net)::text AS net, count(*)::text AS postings FROM (
       SELECT merchant_id, currency, credit_account AS account, amount_minor AS net FROM ledger_postings
       UNION ALL
       SELECT merchant_id, currency, debit_account, -amount_minor FROM ledger_postings) signed
     GROUP BY merchant_id, currency, account`,
  );
  for (const sum of sums.rows) {
    const facts = factsOf(sum.merchant_id, sum.currency);
    facts.fromPostings ??= zero();
    facts.fromPostings[sum.account] = BigInt(sum.net);
  }
  const [{ count: postingCount }] = (await connection.query<{ count: string }>(`SELECT count(*)::text AS count FROM ledger_postings`)).rows;

  const holds = await connection.query<{ merchant_id: string; currency: string; total: string }>(
    `SELECT merchant_id, currency, sum(amount_minor + fee_minor)::text AS total FROM ledger_holds WHERE status = 'pending' GROUP BY merchant_id, currency`,
  );
  for (const hold of holds.rows) factsOf(hold.merchant_id, hold.currency).pendingHoldsInProjection = BigInt(hold.total);

  const adjustments = await connection.query<{ merchant_id: string; currency: string; total: string }>(
    `SELECT merchant_id, currency, sum(amount_minor)::text AS total FROM ledger_deposit_adjustments GROUP BY merchant_id, currency`,
  );
  for (const adjustment of adjustments.rows) factsOf(adjustment.merchant_id, adjustment.currency).adjustmentsTotal = BigInt(adjustment.total);

  const duplicates = await connection.query<{ merchant_id: string; currency: string; posting_id: string; copies: string }>(
    `SELECT merchant_id, currency, posting_id, count(*)::text AS copies FROM ledger_postings GROUP BY merchant_id, currency, posting_id HAVING count(*) > 1`,
  );
  for (const duplicate of duplicates.rows)
    discrepancies.push(`${describe(duplicate.merchant_id, duplicate.currency)}: posting ${duplicate.posting_id} is booked ${duplicate.copies} times`);

  // The event store, one stream at a time: the source of truth the others are checked against.
  let eventCount = 0;
  const streams = await connection.query<{ stream_id: string }>(
    `SELECT DISTINCT stream_id FROM event_store WHERE stream_id LIKE 'ledger:%' ORDER BY stream_id`,
  );
  for (const { stream_id: streamId } of streams.rows) {
    const stored = await connection.query<{ stream_version: number; envelope: MessageEnvelope }>(
      `SELECT stream_version, envelope FROM event_store WHERE stream_id = $1 ORDER BY stream_version`,
      [streamId],
    );
    eventCount += stored.rows.length;
    const first = stored.rows[0].envelope.data as { merchantId?: string; currency?: string };
    const merchantId = String(first.merchantId);
    const currency = String(first.currency);
    const facts = factsOf(merchantId, currency);
    if (streamId !== `ledger:${merchantId}:${currency}`) discrepancies.push(`stream ${streamId} holds events of ${describe(merchantId, currency)}`);
    try {
      const events = stored.rows.map((row) => ledgerEvents.read(row.envelope));
      const postings = new Map<string, Posting>();
      for (const event of events) {
        for (const posting of event.data.postings) {
          if (postings.has(posting.postingId)) discrepancies.push(`${describe(merchantId, currency)}: posting ${posting.postingId} appears in two events`);
          postings.set(posting.postingId, posting);
        }
      }
      facts.fromEvents = { state: foldLedger(merchantId, currency, events), version: stored.rows[stored.rows.length - 1].stream_version, postings };
    } catch (error) {
      facts.fromEvents = { error: error instanceof Error ? error.message : String(error) };
    }
  }

  const folded = [...ledgers.values()].flatMap((facts) =>
    facts.fromEvents && 'state' in facts.fromEvents ? [{ merchantId: facts.merchantId, currency: facts.currency, state: facts.fromEvents.state }] : [],
  );
  await auditConversions(connection, folded, discrepancies);

  const totalsByCurrency: Record<string, Balances> = {};
  for (const facts of [...ledgers.values()].sort((a, b) => keyOf(a.merchantId, a.currency).localeCompare(keyOf(b.merchantId, b.currency)))) {
    await checkLedger(connection, facts, discrepancies);
    const totals = (totalsByCurrency[facts.currency] ??= zero());
    for (const account of LEDGER_ACCOUNTS) totals[account] += facts.fromPostings?.[account] ?? 0n;
  }
  for (const [currency, totals] of Object.entries(totalsByCurrency)) {
    const net = LEDGER_ACCOUNTS.reduce((sum, account) => sum + totals[account], 0n);
    if (net !== 0n) discrepancies.push(`${currency}: postings do not balance, Σ credits − Σ debits over all accounts is ${net}`);
  }

  return {
    ok: discrepancies.length === 0,
    ledgers: ledgers.size,
    postings: Number(postingCount),
    events: eventCount,
    discrepancies,
    totalsByCurrency: Object.fromEntries(
      Object.entries(totalsByCurrency).map(([currency, totals]) => [
        currency,
        Object.fromEntries(LEDGER_ACCOUNTS.map((account) => [account, totals[account].toString()])) as Record<LedgerAccount, string>,
      ]),
    ),
  };
}

async function checkLedger(connection: AuditConnection, facts: LedgerFacts, discrepancies: string[]): Promise<void> {
  const name = describe(facts.merchantId, facts.currency);
  const report = (message: string): void => void discrepancies.push(`${name}: ${message}`);
  const postings = facts.fromPostings ?? zero();
  const events = facts.fromEvents;

  if (!events) return report('has balances or postings but no events in the event store');
  if ('error' in events) return report(`its events do not fold: ${events.error}`);
  const folded = events.state.balances;
  if (!facts.row) report('has events but no ledger_balances row');

  for (const account of LEDGER_ACCOUNTS) {
    const fromRow = facts.row?.balances[account];
    const isMerchantAccount = (MERCHANT_ACCOUNTS as readonly string[]).includes(account);
    const agree = postings[account] === folded[account] && (fromRow === undefined || fromRow === folded[account]);
    if (!agree) {
      const rowPart = fromRow !== undefined ? `ledger_balances ${fromRow}, ` : '';
      report(`${account} disagrees: ${rowPart}Σ ledger_postings ${postings[account]}, event store ${folded[account]}`);
    }
    if (isMerchantAccount && postings[account] < 0n) report(`${account} is negative (${postings[account]}) in ledger_postings`);
  }
  if (facts.row && facts.row.version !== events.version)
    report(`ledger_balances is at stream version ${facts.row.version}, the event store at ${events.version}`);

  const pendingFolded = [...events.state.holds.values()]
    .filter((hold) => hold.status === 'pending')
    .reduce((sum, hold) => sum + hold.amountMinor + hold.feeMinor, 0n);
  const pendingProjected = facts.pendingHoldsInProjection ?? 0n;
  if (
    pendingFolded !== folded.settlement_frozen ||
    pendingProjected !== folded.settlement_frozen ||
    (facts.row && facts.row.balances.settlement_frozen !== pendingProjected)
  ) {
    report(
      `frozen ${facts.row?.balances.settlement_frozen ?? folded.settlement_frozen} is not the open holds: ${pendingProjected} in ledger_holds, ${pendingFolded} in the event store`,
    );
  }
  const adjusted = facts.adjustmentsTotal ?? 0n;
  if (adjusted !== folded.deposit) report(`deposit ${folded.deposit} is not Σ operator adjustments ${adjusted}`);

  await comparePostings(connection, facts, events.postings, report);
  await compareHolds(connection, facts, events.state, report);
  await compareCreditedOrders(connection, facts, events.state, report);
}

/** Every posting of the events is in ledger_postings with the same accounts and amount, and nothing else is. */
async function comparePostings(
  connection: AuditConnection,
  facts: LedgerFacts,
  fromEvents: Map<string, Posting>,
  report: (message: string) => void,
): Promise<void> {
  const rows = await connection.query<{ posting_id: string; debit_account: string; credit_account: string; amount_minor: string }>(
    `SELECT posting_id, debit_account, credit_account, amount_minor::text FROM ledger_postings WHERE merchant_id = $1 AND currency = $2`,
    [facts.merchantId, facts.currency],
  );
  const seen = new Set<string>();
  for (const row of rows.rows) {
    seen.add(row.posting_id);
    const posting = fromEvents.get(row.posting_id);
    if (!posting)
      report(`posting ${row.posting_id} (${row.amount_minor} from ${row.debit_account} to ${row.credit_account}) is in ledger_postings but in no event`);
    else if (posting.amountMinor !== row.amount_minor || posting.debitAccount !== row.debit_account || posting.creditAccount !== row.credit_account) {
      report(
        `posting ${row.posting_id} is ${row.amount_minor} from ${row.debit_account} to ${row.credit_account} in ledger_postings, ${posting.amountMinor} from ${posting.debitAccount} to ${posting.creditAccount} in its event`,
      );
    }
  }
  for (const postingId of fromEvents.keys()) if (!seen.has(postingId)) report(`posting ${postingId} of the event store is missing from ledger_postings`);
  // Σ postings of the events: the books of every event balance (assertBalanced before append).
  const net = sumPostings([...fromEvents.values()]);
  const total = LEDGER_ACCOUNTS.reduce((sum, account) => sum + net[account], 0n);
  if (total !== 0n) report(`the events' postings do not balance (off by ${total})`);
}

async function compareHolds(connection: AuditConnection, facts: LedgerFacts, state: LedgerState, report: (message: string) => void): Promise<void> {
  const rows = await connection.query<{ hold_id: string; status: string; amount_minor: string; fee_minor: string }>(
    `SELECT hold_id, status, amount_minor::text, fee_minor::text FROM ledger_holds WHERE merchant_id = $1 AND currency = $2`,
    [facts.merchantId, facts.currency],
  );
  const projected = new Map(rows.rows.map((row) => [row.hold_id, row]));
  for (const [holdId, hold] of state.holds) {
    const row = projected.get(holdId);
    if (!row) report(`hold ${holdId} is missing from ledger_holds`);
    else if (row.status !== hold.status || BigInt(row.amount_minor) !== hold.amountMinor || BigInt(row.fee_minor) !== hold.feeMinor) {
      report(
        `hold ${holdId} is ${row.status} ${row.amount_minor}+${row.fee_minor} in ledger_holds, ${hold.status} ${hold.amountMinor}+${hold.feeMinor} in the event store`,
      );
    }
    projected.delete(holdId);
  }
  for (const holdId of projected.keys()) report(`hold ${holdId} is in ledger_holds but in no event`);
}

/** The credited-order rows a CreditPayIn decides from are exactly the event store's credits. */
async function compareCreditedOrders(connection: AuditConnection, facts: LedgerFacts, state: LedgerState, report: (message: string) => void): Promise<void> {
  const rows = await connection.query<{ order_id: string; amount_minor: string; fee_minor: string; reason: string }>(
    `SELECT order_id, amount_minor::text, fee_minor::text, reason FROM ledger_credited_orders WHERE merchant_id = $1 AND currency = $2`,
    [facts.merchantId, facts.currency],
  );
  const projected = new Map(rows.rows.map((row) => [row.order_id, row]));
  for (const [orderId, credit] of state.creditedOrders) {
    const row = projected.get(orderId);
    if (!row) report(`credit of order ${orderId} is missing from ledger_credited_orders`);
    else if (row.reason !== credit.reason || BigInt(row.amount_minor) !== credit.amountMinor || BigInt(row.fee_minor) !== credit.feeMinor) {
      report(
        `credit of order ${orderId} is ${row.reason} ${row.amount_minor}+${row.fee_minor} in ledger_credited_orders, ${credit.reason} ${credit.amountMinor}+${credit.feeMinor} in the event store`,
      );
    }
    projected.delete(orderId);
  }
  for (const orderId of projected.keys()) report(`credit of order ${orderId} is in ledger_credited_orders but in no event`);
}

function describe(merchantId: string, currency: string): string {
  return `merchant ${merchantId} ${currency}`;
}

/** The report as an operator reads it. */
export function formatAuditReport(report: LedgerAuditReport): string {
  const lines = [`ledger audit: ${report.ledgers} ledger(s), ${report.events} event(s), ${report.postings} posting(s)`];
  for (const [currency, totals] of Object.entries(report.totalsByCurrency).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`  ${currency}: ${LEDGER_ACCOUNTS.map((account) => `${account} ${totals[account]}`).join(', ')}`);
  }
  if (report.ok) lines.push('OK: every balance equals its postings and its events; postings balance; frozen equals open holds');
  else {
    lines.push(`DISCREPANCIES (${report.discrepancies.length}):`);
    for (const discrepancy of report.discrepancies) lines.push(`  - ${discrepancy}`);
  }
  return lines.join('\n');
}
