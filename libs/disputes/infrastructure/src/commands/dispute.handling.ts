import { DISPUTE_EXTERNAL_EVENT_SCHEMA_VERSION, DISPUTE_EXTERNAL_EVENT_TYPES, DISPUTES_TOPICS, type DisputeExternalEventType } from '@mp/contracts-disputes';
import { paymentOrderKey } from '@mp/contracts-payments';
import { DISPUTE_EVENT_SCHEMAS, disputeDecider, toDisputeStreamId, type Dispute, type DisputeCommand, type DisputeEvent, type ExistingDispute } from '@mp/disputes-domain';
import { handleCommand, type AppendedEvents, type Causation, type CommandResult } from '@mp/shared-command-handling';
import { eventCodec } from '@mp/shared-decider';
import { createEnvelope, enqueueOutbox } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import type { EntityManager } from 'typeorm';
import { disputeView, saveDisputeProjection } from '../persistence/dispute.projection';

const disputeEvents = eventCodec(DISPUTE_EVENT_SCHEMAS);

/** A reopen is an open for everyone outside: the order is disputed again. */
const EXTERNAL_TYPE_OF: Record<DisputeEvent['type'], DisputeExternalEventType> = {
  DisputeOpened: DISPUTE_EXTERNAL_EVENT_TYPES.opened,
  DisputeReopened: DISPUTE_EXTERNAL_EVENT_TYPES.opened,
  DisputeAccepted: DISPUTE_EXTERNAL_EVENT_TYPES.accepted,
  DisputeRejected: DISPUTE_EXTERNAL_EVENT_TYPES.rejected,
};

/**
 * One command on one disputed order's stream, on the shared command core. The stream is short
 * by the rules (an open, then a review, a reopen per rejected round), so the state is folded
 * from it. Two opens racing on one order meet on this stream: the event store's unique
 * (stream, version) lets one append, the other is retried and sees the open dispute.
 */
export async function handleDisputeCommand(manager: EntityManager, merchantId: string, orderId: string, command: DisputeCommand, causation: Causation): Promise<CommandResult<Dispute, DisputeEvent> & { dispute: ExistingDispute }> {
  const result = await handleCommand(disputeDecider, toDisputeStreamId(merchantId, orderId), command, {
    transaction: { manager },
    codec: disputeEvents,
    envelope: { source: 'disputes', subject: `merchant:${merchantId}/order:${orderId}`, causation },
    afterAppend: async (innerManager, appended) => {
      await saveDisputeProjection(innerManager, existing(appended.state), appended.version);
      await publishDisputeEvents(innerManager, appended);
    },
  });
  return { ...result, dispute: existing(result.state) };
}

function existing(state: Dispute): ExistingDispute {
  if (state.status === 'NotOpened') throw new DomainError('DISPUTE_NOT_FOUND', 'No such dispute');
  return state;
}

/** External events (no receipt content, the state object after each event) to the outbox, in the command's transaction. */
async function publishDisputeEvents(manager: EntityManager, appended: AppendedEvents<Dispute, DisputeEvent>): Promise<void> {
  let state = appended.stateBefore;
  const messages = appended.events.map((event, index) => {
    state = disputeDecider.evolve(state, event);
    const dispute = existing(state);
    const envelope = appended.envelopes[index];
    return {
      topic: DISPUTES_TOPICS.events,
      key: paymentOrderKey(dispute.merchantId, dispute.orderId),
      envelope: createEnvelope({
        type: EXTERNAL_TYPE_OF[event.type],
        schemaVersion: DISPUTE_EXTERNAL_EVENT_SCHEMA_VERSION,
        source: 'disputes',
        subject: `merchant:${dispute.merchantId}/order:${dispute.orderId}`,
        data: {
          merchantId: dispute.merchantId,
          orderId: dispute.orderId,
          disputeId: dispute.disputeId,
          version: appended.versionBefore + index + 1,
          settledAmountMinor: event.type === 'DisputeAccepted' ? event.data.settledAmountMinor : null,
          occurredAt: event.data.occurredAt,
          dispute: disputeView(dispute),
        },
        correlationId: envelope.correlationId,
        causationId: envelope.causationId ?? envelope.id,
      }),
    };
  });
  await enqueueOutbox(manager, messages);
}
