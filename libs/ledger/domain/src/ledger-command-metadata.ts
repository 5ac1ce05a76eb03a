/**
 * Everything from outside the decider, so replaying a command gives the same events. Its own
 * file because every ledger command carries it, the conversion legs (ledger-conversions.ts)
 * included, and those are imported by the decider, never the reverse.
 */
export interface LedgerCommandMetadata {
  now: Date;
}
