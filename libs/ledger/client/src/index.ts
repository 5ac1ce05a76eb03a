export { HttpLedgerHolds, type LedgerHolds } from './holds-client';
