/** What the payments service needs from the ledger: a synchronous, idempotent hold (the client lives with the ledger's contract). */
export { HttpLedgerHolds, type LedgerHolds } from '@mp/contracts-ledger';

export const LEDGER_HOLDS = Symbol('LEDGER_HOLDS');
