/** What the payments service needs from the ledger: a synchronous, idempotent hold (the client is the ledger's, libs/ledger/client). */
export { HttpLedgerHolds, lockHoldPlacement, placeHoldForNewObject, type LedgerHolds } from '@mp/ledger-client';

export const LEDGER_HOLDS = Symbol('LEDGER_HOLDS');
