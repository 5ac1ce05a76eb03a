/**
 * Double-entry vocabulary of the ledger (style.md convention 8). Every movement of money is a
 * posting that debits one account and credits another by the same positive amount, so the
 * books balance by construction; balances are derived from postings, never stored apart.
 *
 * Accounts are scoped by the ledger stream, one per (merchantId, currency): `deposit` in the
 * stream `ledger:m1:USD` is merchant m1's USD deposit. Every balance here is credits − debits.
 */

////////// Accounts

/** What the platform owes the merchant: liabilities, so their balance can never be negative. */
export const MERCHANT_ACCOUNTS = ['settlement_available', 'settlement_frozen', 'deposit'] as const;
export type MerchantAccount = (typeof MERCHANT_ACCOUNTS)[number];

/**
 * The platform's side: `fee_revenue` is what it earned from this merchant; `clearing` is the
 * outside world (payers, payees, crypto networks, operator transfers) and may go negative;
 * `fx` is the platform's currency-exchange position in this currency (conversions), which may
 * go either way.
 */
export const PLATFORM_ACCOUNTS = ['fee_revenue', 'clearing', 'fx'] as const;
export type PlatformAccount = (typeof PLATFORM_ACCOUNTS)[number];

export const LEDGER_ACCOUNTS = [...MERCHANT_ACCOUNTS, ...PLATFORM_ACCOUNTS] as const;
export type LedgerAccount = MerchantAccount | PlatformAccount;

export type AccountBalances = Record<LedgerAccount, bigint>;

////////// Postings

/** Why a posting exists (TigerBeetle's transfer `code`). Stable strings: they are stored in events. */
export const POSTING_CODES = [
  'PAYIN_SETTLED',
  'PAYIN_FEE',
  'HOLD_PLACED',
  'HOLD_POSTED',
  'HOLD_FEE',
  'HOLD_VOIDED',
  'DEPOSIT_TOP_UP',
  'DEPOSIT_ADJUSTMENT',
  'DISPUTE_SETTLED',
  'DISPUTE_FEE',
  'CONVERSION_OUT',
  'CONVERSION_FEE',
  'CONVERSION_IN',
] as const;
export type PostingCode = (typeof POSTING_CODES)[number];

/** The business object a posting belongs to, so a statement line can link to it. */
export interface PostingReference {
  kind: 'payment_order' | 'withdrawal' | 'deposit_adjustment' | 'conversion';
  id: string;
}

export interface Posting {
  /** Deterministic and unique within the stream, so replaying a command gives the same ids. */
  postingId: string;
  debitAccount: LedgerAccount;
  creditAccount: LedgerAccount;
  /** Decimal string of a positive bigint: events are JSON, and JSON has no bigint. */
  amountMinor: string;
  code: PostingCode;
  reference: PostingReference;
}

export function zeroBalances(): AccountBalances {
  return { settlement_available: 0n, settlement_frozen: 0n, deposit: 0n, fee_revenue: 0n, clearing: 0n, fx: 0n };
}

const POSITIVE_DECIMAL = /^[1-9][0-9]*$/;

function isLedgerAccount(value: unknown): value is LedgerAccount {
  return typeof value === 'string' && (LEDGER_ACCOUNTS as readonly string[]).includes(value);
}

/** The posting's amount, after checking the posting is well formed; a malformed one is a bug. */
export function postingAmountMinor(posting: Posting): bigint {
  if (!POSITIVE_DECIMAL.test(posting.amountMinor)) {
    throw new Error(`posting ${posting.postingId}: amount ${JSON.stringify(posting.amountMinor)} is not a positive decimal integer`);
  }
  if (!isLedgerAccount(posting.debitAccount) || !isLedgerAccount(posting.creditAccount)) {
    throw new Error(`posting ${posting.postingId}: unknown account ${posting.debitAccount} or ${posting.creditAccount}`);
  }
  if (posting.debitAccount === posting.creditAccount) {
    throw new Error(`posting ${posting.postingId}: debits and credits the same account ${posting.debitAccount}`);
  }
  return BigInt(posting.amountMinor);
}

/** Net change per account (credits − debits) of a list of postings. */
export function sumPostings(postings: readonly Posting[]): AccountBalances {
  const netByAccount = zeroBalances();
  for (const posting of postings) {
    const amountMinor = postingAmountMinor(posting);
    netByAccount[posting.debitAccount] -= amountMinor;
    netByAccount[posting.creditAccount] += amountMinor;
  }
  return netByAccount;
}

export function addBalances(left: Readonly<AccountBalances>, right: Readonly<AccountBalances>): AccountBalances {
  const total = zeroBalances();
  for (const account of LEDGER_ACCOUNTS) total[account] = left[account] + right[account];
  return total;
}

/**
 * Checks that every event's postings are well formed, have unique ids and that Σ debits =
 * Σ credits, i.e. the net changes over all accounts add up to zero. Throws an Error (a broken
 * invariant, never a business error). Call it on events before appending them.
 */
export function assertBalanced(events: readonly { type: string; data: { postings: readonly Posting[] } }[]): void {
  for (const event of events) {
    const { postings } = event.data;
    if (postings.length === 0) throw new Error(`${event.type} moves no money`);
    const postingIds = new Set(postings.map((posting) => posting.postingId));
    if (postingIds.size !== postings.length) throw new Error(`${event.type} repeats a posting id`);
    const netByAccount = sumPostings(postings);
    const totalMinor = LEDGER_ACCOUNTS.reduce((sum, account) => sum + netByAccount[account], 0n);
    if (totalMinor !== 0n) throw new Error(`${event.type} is unbalanced by ${totalMinor}`);
  }
}
