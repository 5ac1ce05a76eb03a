import { verifyEventChain } from '@mp/shared-messaging';
import type { AuditCheck, AuditedDatabase } from './audit-check';

/** The databases that keep an event store (the callbacks and gateway ones keep none). */
const EVENT_STORES = ['ledger', 'payments', 'withdrawals', 'disputes', 'callbacks'] as const satisfies readonly AuditedDatabase[];

/** Every stream id is `<kind>:<merchant>:...` (ledger:<merchant>:<currency>, order:<merchant>:<order>, ...). */
const merchantOfStream = (streamId: string | null): string | null => streamId?.split(':')[1] ?? null;

/**
 * The hash chain and daily anchors of every event store (docs/operations/audit.md, "Event hash
 * chain"). Unlike the other checks it reads every event, in batches: each hash is re-derived
 * from the stored bytes. One violation per broken stream, its first altered, missing or
 * reordered event, with the store, stream, version and global position.
 */
export const eventHashChains: AuditCheck = {
  name: 'event-hash-chains',
  description:
    'Every stored event still gives the hash chained to the one before it in its stream, and every closed UTC day still hashes to its anchor: no event altered, dropped or reordered.',
  reads: EVENT_STORES,
  async run({ connections }) {
    const violations = [];
    for (const store of EVENT_STORES) {
      const { findings } = await verifyEventChain(connections[store]);
      violations.push(
        ...findings.map((finding) => ({ merchantId: merchantOfStream(finding.streamId), message: `${store}: ${finding.kind}: ${finding.message}` })),
      );
    }
    return violations;
  },
};
