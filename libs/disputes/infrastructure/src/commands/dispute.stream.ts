import {
  DISPUTE_EXTERNAL_EVENT_SCHEMA_VERSION,
  DISPUTE_EXTERNAL_EVENT_TYPES,
  DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES,
  DISPUTES_TOPICS,
  type DisputeExternalEventData,
  type DisputeExternalEventType,
  type DisputeOutcomeVisibleEventType,
} from '@mp/contracts-disputes';
import { paymentOrderKey } from '@mp/contracts-payments';
import {
  DISPUTE_EVENT_SCHEMAS,
  disputeDecider,
  toDisputeStreamId,
  type Dispute,
  type DisputeCommand,
  type DisputeEvent,
  type ExistingDispute,
} from '@mp/disputes-domain';
import { aggregateStream, handleCommand, type AppendedEvents, type Causation, type CommandResult } from '@mp/shared-command-handling';
import { eventCodec } from '@mp/shared-decider';
import { createEnvelope, enqueueOutbox, readStream, type OutgoingMessage } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import type { EntityManager } from 'typeorm';
import { v5 as nameBasedUuid } from 'uuid';
import { disputeView, saveDisputeProjection } from '../persistence/dispute.projection';
import { attachDisputeReceipt, deleteDisputeReceipt } from '../receipts/dispute-receipts.store';

export const disputeEvents = eventCodec(DISPUTE_EVENT_SCHEMAS);

/** A reopen is an open for everyone outside: the order is disputed again. */
const EXTERNAL_TYPE_OF: Record<DisputeEvent['type'], DisputeExternalEventType> = {
  DisputeOpened: DISPUTE_EXTERNAL_EVENT_TYPES.opened,
  DisputeReopened: DISPUTE_EXTERNAL_EVENT_TYPES.opened,
  DisputeAccepted: DISPUTE_EXTERNAL_EVENT_TYPES.accepted,
  DisputeRejected: DISPUTE_EXTERNAL_EVENT_TYPES.rejected,
};

/** Events whose state merchants see only once payments has applied them to the order (see below). */
export const AWAITS_PAYMENTS: ReadonlySet<DisputeEvent['type']> = new Set(['DisputeAccepted', 'DisputeRejected']);

/**
 * One command on one disputed order's stream, on the shared command core. The stream is short
 * by the rules (an open, then a review, a reopen per rejected round), so the state is folded
 * from it. Two opens racing on one order meet on this stream: the event store's unique
 * (stream, version) lets one append, the other is retried and sees the open dispute.
 *
 * Spec 4.9 rule 4, read-your-writes: what merchants read of a dispute never runs ahead of its
 * order. An open or reopen is projected at once (the merchant's 201 waits for payments anyway:
 * `awaitingReply` goes on the DisputeOpened event, and payments answers the gateway after it has
 * applied the PENDING overlay). A review's outcome is projected only when payments says it has
 * applied it (`recordOutcomeApplied`), so a merchant who sees ACCEPTED reads the order SUCCEEDED.
 */
export async function handleDisputeCommand(
  manager: EntityManager,
  merchantId: string,
  orderId: string,
  command: DisputeCommand,
  causation: Causation,
  awaitingReply?: string,
): Promise<CommandResult<Dispute, DisputeEvent> & { dispute: ExistingDispute }> {
  const result = await handleCommand(disputeDecider, toDisputeStreamId(merchantId, orderId), command, {
    transaction: { manager },
    codec: disputeEvents,
    envelope: { source: 'disputes', subject: `merchant:${merchantId}/order:${orderId}`, causation },
    afterAppend: async (innerManager, appended) => {
      const dispute = existing(appended.state);
      if (!appended.events.some((event) => AWAITS_PAYMENTS.has(event.type))) await saveDisputeProjection(innerManager, dispute, appended.version);
      await keepOnlyCurrentReceipt(innerManager, appended.stateBefore, dispute);
      await publishDisputeEvents(innerManager, appended, awaitingReply);
    },
  });
  return { ...result, dispute: existing(result.state) };
}

/** The dispute on an order as its stream says now. */
export function loadDispute(manager: EntityManager, merchantId: string, orderId: string) {
  return aggregateStream(manager, disputeDecider, toDisputeStreamId(merchantId, orderId), { codec: disputeEvents });
}

/**
 * Payments has applied the review's outcome at `version`: merchants may see it now. The outcome
 * is projected unless the stream moved on since (a reopen, projected at once); an older or
 * repeated acknowledgement changes nothing there (the projection keeps the highest version).
 * Either way the outcome's DisputeAcceptedVisible/DisputeRejectedVisible goes to the outbox in
 * this transaction: the merchant's `dispute.accepted/rejected` callback is sent from it, so it
 * never arrives before the dispute's reads show what it says. Dispute streams are short by
 * their rules (an open, a review, a reopen per rejected round), so reading one whole is cheap.
 */
export async function recordOutcomeApplied(manager: EntityManager, merchantId: string, orderId: string, version: number): Promise<void> {
  const streamId = toDisputeStreamId(merchantId, orderId);
  const stream = await readStream(manager, streamId);
  const review = stream.events[version - 1];
  if (!review || !AWAITS_PAYMENTS.has(review.type as DisputeEvent['type'])) return;
  const reviewed = existing(
    stream.events.slice(0, version).reduce((state, envelope) => disputeDecider.evolve(state, disputeEvents.read(envelope)), disputeDecider.initialState()),
  );
  if (stream.version === version) await saveDisputeProjection(manager, reviewed, version);
  // The same acknowledgement twice under two message ids (past the inbox) writes the message once:
  // the dispute's row remembers the last version published (a keyed read, where the outbox
  // would be a scan of everything ever sent), and the id derived from the stream and version
  // lets the dispatcher's webhook id cover a copy published twice all the same.
  const [claimed]: [unknown[], number] = await manager.query(
    `UPDATE disputes SET outcome_published_version = $3 WHERE dispute_id = $1 AND merchant_id = $2 AND (outcome_published_version IS NULL OR outcome_published_version < $3) RETURNING 1`,
    [reviewed.disputeId, reviewed.merchantId, version],
  );
  if (claimed.length === 0) return;
  const messageId = nameBasedUuid(`${streamId}@${version}`, OUTCOME_VISIBLE_NAMESPACE);
  const event = disputeEvents.read(review);
  const type = event.type === 'DisputeAccepted' ? DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES.accepted : DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES.rejected;
  await enqueueOutbox(manager, [
    disputesEventMessage(reviewed, event, version, { id: messageId, type, correlationId: review.correlationId, causationId: review.id }),
  ]);
}

/** Names the visible-outcome event of one review, so that a repeated acknowledgement makes the same id (see DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES). */
const OUTCOME_VISIBLE_NAMESPACE = '5b0c7a1e-3f0d-4b9e-9a53-2f4d3c1b8e67';

/** One message of `disputes.events`: the dispute's state object after `event`, at `version` of its stream. */
function disputesEventMessage(
  dispute: ExistingDispute,
  event: DisputeEvent,
  version: number,
  envelope: { id?: string; type: DisputeExternalEventType | DisputeOutcomeVisibleEventType; correlationId: string; causationId: string; replyTo?: string },
): OutgoingMessage {
  const data: DisputeExternalEventData = {
    merchantId: dispute.merchantId,
    orderId: dispute.orderId,
    disputeId: dispute.disputeId,
    version,
    settledAmountMinor: event.type === 'DisputeAccepted' ? event.data.settledAmountMinor : null,
    occurredAt: event.data.occurredAt,
    dispute: disputeView(dispute),
  };
  return {
    topic: DISPUTES_TOPICS.events,
    key: paymentOrderKey(dispute.merchantId, dispute.orderId),
    envelope: createEnvelope({
      ...envelope,
      schemaVersion: DISPUTE_EXTERNAL_EVENT_SCHEMA_VERSION,
      source: 'disputes',
      subject: `merchant:${dispute.merchantId}/order:${dispute.orderId}`,
      data,
    }),
  };
}

/** The evidence's receipt is kept with its dispute; the one a reopen replaced is deleted (issue 17). */
async function keepOnlyCurrentReceipt(manager: EntityManager, before: Dispute, after: ExistingDispute): Promise<void> {
  const previous = before.status === 'NotOpened' ? null : before.evidence.receipt;
  const current = after.evidence.receipt;
  if (current && current.receiptId !== previous?.receiptId) await attachDisputeReceipt(manager, after.merchantId, current.receiptId, after.disputeId);
  if (previous && previous.receiptId !== current?.receiptId) await deleteDisputeReceipt(manager, after.merchantId, previous.receiptId);
}

function existing(state: Dispute): ExistingDispute {
  if (state.status === 'NotOpened') throw new DomainError('DISPUTE_NOT_FOUND', 'No such dispute');
  return state;
}

/** External events (no receipt content, the state object after each event) to the outbox, in the command's transaction. */
async function publishDisputeEvents(manager: EntityManager, appended: AppendedEvents<Dispute, DisputeEvent>, awaitingReply: string | undefined): Promise<void> {
  let state = appended.stateBefore;
  const messages = appended.events.map((event, index) => {
    state = disputeDecider.evolve(state, event);
    const envelope = appended.envelopes[index];
    const type = EXTERNAL_TYPE_OF[event.type];
    return disputesEventMessage(existing(state), event, appended.versionBefore + index + 1, {
      type,
      correlationId: envelope.correlationId,
      // The open command's id: the gateway matches the reply payments sends on its behalf by it.
      causationId: envelope.causationId ?? envelope.id,
      replyTo: type === DISPUTE_EXTERNAL_EVENT_TYPES.opened ? awaitingReply : undefined,
    });
  });
  await enqueueOutbox(manager, messages);
}
