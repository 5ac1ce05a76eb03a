import { MessageIntake } from '@mp/shared-command-handling';
import type { MessageEnvelope } from '@mp/shared-messaging';
import type { Clock } from '@mp/shared-util-clock';
import type { DataSource } from 'typeorm';
import { markHoldsAttached } from '../holds/hold-attachment';
import { handleLedgerCommand } from './ledger.stream';
import type { LedgerCommandFor } from './payment-event.mapping';

/** A payout's or withdrawal's hold whose object now exists (no money moves). */
export interface HoldAttachment {
  merchantId: string;
  currency: string;
  holdId: string;
}

/** What one event means to the ledger: a hold to mark attached, money to move, or (null) nothing. */
export type LedgerEventMeaning = { attach: HoldAttachment } | { move: LedgerCommandFor } | null;

/**
 * The ledger's one intake of other contexts' events (payment orders, withdrawals), on the shared
 * MessageIntake: events fetched together from one partition move money in one transaction, with
 * one inbox statement for all of them.
 *
 * - Hold attachments move no money and need no inbox (setting `attached_at` twice changes
 *   nothing): one statement for the batch's, on its own, before the money transaction, so they
 *   take no hold row lock inside it (see below). A creation always precedes its order's outcome.
 * - Money: a redelivery (same envelope id) is skipped by the inbox; a copy with a new id (a
 *   retried command upstream) is absorbed by the decider, which credits an order and resolves a
 *   hold once. A business refusal of a fact that already happened (a hold that does not exist, a
 *   pay-in redelivered with other amounts) will not change on retry: alone, it is dead-lettered
 *   for an operator and nothing of it is written; in a batch it rolls the batch back first.
 *
 * Deadlocks. Each ledger command locks its ledger's balances row (merchant × currency,
 * lockLedger), and a batch holds every lock it took until it commits, so two replicas' batches
 * (different partitions, the same merchants) could wait on each other. Chosen: the batch is
 * applied in (merchant, currency) order, `lockKeyOf` (stable, so each order's events keep their
 * order; the key of an order's events never differs), the order conversions already lock in, so
 * batch transactions take their locks in one global order and never deadlock one another. Every
 * other writer (a hold or release over HTTP, the orphan sweep, an adjustment) locks one ledger
 * per transaction, and hold rows are only locked after their ledger's row (or, for attachments,
 * outside the batch), so no cycle is left. Should PostgreSQL still find one, its abort (40P01) is
 * a transient error (libs/shared/messaging error-classification): the batch rolls back, the port
 * hands its events over one at a time, and those are retried until they pass. Not chosen: taking
 * deadlocks as the normal path, because the victim waits deadlock_timeout (1 s) first while
 * holding its locks, and the victim may be a payout's hold over HTTP. Batches stay short for the
 * holds over HTTP that queue behind them: at most 50 events (the port's chunk), and no network
 * call inside.
 */
export class LedgerEventIntake {
  private readonly intake: MessageIntake<LedgerCommandFor>;
  /** Each envelope's meaning, worked out once per delivery: the attachments and the intake's `read` both need it. */
  private readonly meanings = new WeakMap<MessageEnvelope, LedgerEventMeaning>();

  constructor(
    private readonly dataSource: DataSource,
    inbox: string,
    private readonly meaningOf: (envelope: MessageEnvelope, now: Date) => LedgerEventMeaning,
    private readonly clock: Clock,
  ) {
    this.intake = new MessageIntake<LedgerCommandFor>(dataSource, {
      inbox,
      read: (envelope) => {
        const meaning = this.meanings.has(envelope) ? (this.meanings.get(envelope) ?? null) : meaningOf(envelope, clock.now());
        return meaning && 'move' in meaning ? meaning.move : null;
      },
      lockKeyOf: ({ merchantId, currency }) => `${merchantId}\u0000${currency}`,
      refusedBy: 'the ledger',
      apply: async (manager, events) => {
        for (const { envelope, item } of events)
          await handleLedgerCommand({ manager }, item.merchantId, item.currency, item.command, { id: envelope.id, correlationId: envelope.correlationId });
      },
    });
  }

  async handleAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    const now = this.clock.now();
    const attachments = envelopes.flatMap((envelope) => {
      const meaning = this.meaningOf(envelope, now);
      this.meanings.set(envelope, meaning);
      return meaning && 'attach' in meaning ? [meaning.attach] : [];
    });
    await markHoldsAttached(this.dataSource.manager, attachments);
    await this.intake.handleAll(envelopes);
  }
}
