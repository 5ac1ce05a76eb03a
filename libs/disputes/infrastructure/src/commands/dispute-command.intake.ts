import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DISPUTE_COMMAND_SCHEMA_VERSION,
  DISPUTE_COMMAND_TYPES,
  OpenDisputeCommandDto,
  type OpenDisputeCommandData,
} from '@mp/contracts-disputes';
import { COMMAND_REPLY_TYPE } from '@mp/contracts-payments';
import type { DisputeReceiptRef, DisputeReviewer } from '@mp/disputes-domain';
import { CommandIntake, DEFAULT_CONFLICT_RETRY_POLICY, retryOnConflict, type Causation, type CommandContract } from '@mp/shared-command-handling';
import type { MessageEnvelope } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { parseAmountLiteral } from '@mp/shared-util-money';
import { DataSource, type EntityManager } from 'typeorm';
import { DISPUTES_CLOCK, DISPUTES_SETTINGS, type Clock, type DisputesSettings } from '../disputes-settings';
import { findOrderFacts } from '../orders/dispute-orders.store';
import { findDisputeOrder } from '../persistence/dispute.projection';
import { claimDisputeReceipt, discardUnclaimedReceipt } from '../receipts/dispute-receipts.store';
import { handleDisputeCommand, recordOutcomeApplied } from './dispute.handling';
import { outcomeAppliedOfLegacyCommand, type OutcomeAppliedToOrder } from './outcome-applied';

const INBOX_CONSUMER = 'disputes.commands';

type DisputeCommandType = (typeof DISPUTE_COMMAND_TYPES)[keyof typeof DISPUTE_COMMAND_TYPES];

/** OpenDispute's payload is checked by its request class; the legacy acknowledgement by hand (outcomeAppliedOfLegacyCommand). */
const DISPUTE_COMMAND_CONTRACT = {
  schemaVersion: DISPUTE_COMMAND_SCHEMA_VERSION,
  payloads: { [DISPUTE_COMMAND_TYPES.open]: OpenDisputeCommandDto, [DISPUTE_COMMAND_TYPES.legacyOutcomeApplied]: null },
} as const satisfies CommandContract<DisputeCommandType>;

/**
 * Opens disputes (endpoint 14, from `disputes.commands`, which only the gateway writes) and
 * reviews them (back office, over the internal HTTP API). Each runs in one transaction: inbox
 * claim (for Kafka commands, through the shared CommandIntake), the decider, the append, the
 * projection, the external events and the reply in the outbox. Consecutive commands of one
 * partition share one transaction (`handleAll`). A version conflict (ten opens of one order at
 * once) rolls a batch back; the port then hands its commands over one at a time, and a single
 * command reruns its whole transaction, which then decides on the dispute the winner opened.
 */
@Injectable()
export class DisputeCommandHandler {
  private readonly intake: CommandIntake<DisputeCommandType, OutcomeAppliedToOrder | null>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(DISPUTES_CLOCK) private readonly clock: Clock,
    @Inject(DISPUTES_SETTINGS) private readonly settings: DisputesSettings,
  ) {
    this.intake = new CommandIntake(dataSource, {
      inbox: INBOX_CONSUMER,
      contract: DISPUTE_COMMAND_CONTRACT,
      reply: { type: COMMAND_REPLY_TYPE, source: 'disputes' },
      // Kept for one release after issue 20: a RecordDisputeOutcomeApplied payments sent before its
      // upgrade is applied as its successor on payments.order.events is (OrderEventsConsumer), then this goes.
      prepare: async (envelope, type) => (type === DISPUTE_COMMAND_TYPES.legacyOutcomeApplied ? outcomeAppliedOfLegacyCommand(envelope) : null),
      run: async (manager, envelope, legacyOutcome) => {
        if (legacyOutcome) await recordOutcomeApplied(manager, legacyOutcome.merchantId, legacyOutcome.orderId, legacyOutcome.disputeVersion);
        else await this.open(manager, envelope);
        // An accepted open is answered by payments (see `open`); the legacy acknowledgement answers nobody.
        return null;
      },
      // The receipt follows a refused open: deleted in its transaction.
      onRejected: async (manager, envelope) => {
        const { merchantId, receiptId } = envelope.data as OpenDisputeCommandData;
        if (receiptId !== null) await discardUnclaimedReceipt(manager, merchantId, receiptId);
      },
    });
  }

  handle(envelope: MessageEnvelope): Promise<void> {
    return this.intake.handle(envelope);
  }

  handleAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    return this.intake.handleAll(envelopes);
  }

  /**
   * An accepted open is answered by payments, after it has applied the PENDING overlay (the
   * DisputeOpened event carries this command's `replyTo`); a refused one is answered by the
   * intake. Either way the receipt follows the outcome in this transaction: attached to the
   * dispute here, or deleted by `onRejected`.
   */
  private async open(manager: EntityManager, envelope: MessageEnvelope): Promise<void> {
    const data = envelope.data as OpenDisputeCommandData;
    const order = await findOrderFacts(manager, data.merchantId, data.orderId);
    // Amount and receipt are looked at only for an incoming order, so an outgoing or unknown
    // order is answered by the decider's one ORDER_NOT_FOUND whatever else the body holds.
    const incoming = order?.direction === 'incoming';
    const amountMinor = incoming && data.amount !== null ? amountInCurrency(data.amount, order.currency) : null;
    const receipt = incoming && data.receiptId !== null ? await this.receipt(manager, data.merchantId, data.receiptId) : null;
    await handleDisputeCommand(
      manager,
      data.merchantId,
      data.orderId,
      { type: 'OpenDispute', data: { merchantId: data.merchantId, orderId: data.orderId, amountMinor, comment: data.comment, receipt }, metadata: { now: this.clock.now(), order, newDisputeId: newDisputeId(), reviewWindowHours: this.settings.reviewWindowHours } },
      causationOf(envelope),
      envelope.replyTo,
    );
  }

  /** A back-office review: the order's agent or an operator; anyone else is told the dispute does not exist. */
  async review(disputeId: string, merchantId: string, decision: 'ACCEPTED' | 'REJECTED', reviewer: DisputeReviewer, reason: string | null, causation: Causation) {
    return retryOnConflict(DEFAULT_CONFLICT_RETRY_POLICY, () =>
      this.dataSource.transaction(async (manager) => {
        const target = await findDisputeOrder(manager, disputeId);
        if (!target || target.merchantId !== merchantId) throw new DomainError('DISPUTE_NOT_FOUND', `No dispute ${disputeId}`);
        const { dispute } = await handleDisputeCommand(manager, target.merchantId, target.orderId, { type: 'ReviewDispute', data: { decision, reviewer, reason }, metadata: { now: this.clock.now() } }, causation);
        return dispute;
      }),
    );
  }

  private async receipt(manager: EntityManager, merchantId: string, receiptId: string): Promise<DisputeReceiptRef> {
    const receipt = await claimDisputeReceipt(manager, merchantId, receiptId);
    if (!receipt) throw new DomainError('VALIDATION_ERROR', 'The receipt was not stored for this merchant', [{ field: 'receipt', issue: 'unknown receipt' }]);
    return receipt;
  }
}

function amountInCurrency(amount: string, currency: string): bigint {
  const parsed = parseAmountLiteral(amount, currency);
  if (!parsed.ok) {
    const issue = parsed.reason === 'too_many_decimals' ? `has more decimals than ${currency} allows` : parsed.reason === 'too_large' ? 'is too large' : 'must be greater than 0';
    throw new DomainError('VALIDATION_ERROR', 'The dispute is not valid', [{ field: 'amount', issue }]);
  }
  return parsed.amountMinor;
}

function causationOf(envelope: MessageEnvelope): Causation {
  return { id: envelope.id, correlationId: envelope.correlationId };
}

function newDisputeId(): string {
  return `dsp_${randomBytes(12).toString('hex')}`;
}
