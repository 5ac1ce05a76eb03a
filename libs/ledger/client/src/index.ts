export { HttpLedgerHolds, placeHoldForNewObject, type LedgerHolds } from './holds-client';
