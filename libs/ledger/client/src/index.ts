export { HttpLedgerHolds, placeHoldForNewObject, type LedgerHolds } from './holds-client';
export { assertNoHoldPlacementInProgress, lockHoldPlacement } from './hold-placement-lock';
