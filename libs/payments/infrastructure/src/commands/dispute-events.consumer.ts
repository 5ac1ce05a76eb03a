import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DISPUTE_EXTERNAL_EVENT_TYPES, DISPUTES_TOPICS, type DisputeExternalEventData } from '@mp/contracts-disputes';
import { claimInboxMessage, ConsumeTopic, PoisonMessageError, type ReceivedMessage } from '@mp/shared-messaging';
import { DEFAULT_CONFLICT_RETRY_POLICY, retryOnConflict } from '@mp/shared-command-handling';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource, type EntityManager } from 'typeorm';
import { LEDGER_HOLDS, type LedgerHolds } from '../ledger/ledger-holds.port';
import { setOpenDispute } from '../persistence/payment-order.projection';
import { CLOCK, type Clock } from '../payments-settings';
import { loadMethodCatalog } from '../reference-data/method-catalog.store';
import { handlePaymentOrderCommand } from './payment-order.handling';

const INBOX_CONSUMER = 'payments.dispute-events';

/**
 * The disputes context's external events, as they touch orders:
 * - DisputeOpened (a first open or a reopen): the order is reported PENDING (overlay flag);
 * - DisputeRejected: the overlay ends, the order shows its own state again;
 * - DisputeAccepted: the overlay ends and the order settles as SUCCEEDED for the disputed
 *   amount (SettleIncomingPaymentByDispute), which publishes PaymentOrderSucceeded for the
 *   ledger to credit once.
 * Why the flag lives in payments (and not a lookup by the gateway): endpoints 3, 4 and 5 read
 * the order projection only, one row per order and one query per list page, so the overlay
 * costs no second round trip per order. The inbox makes a redelivery change nothing, the
 * dispute version makes an older event change nothing; all of it in one transaction.
 */
@Controller()
export class DisputeEventsConsumer {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @ConsumeTopic(DISPUTES_TOPICS.events)
  async consume(@Payload() message: ReceivedMessage): Promise<void> {
    const { envelope } = message;
    const data = envelope.data as DisputeExternalEventData;
    const open = envelope.type === DISPUTE_EXTERNAL_EVENT_TYPES.opened;
    if (!open && envelope.type !== DISPUTE_EXTERNAL_EVENT_TYPES.rejected && envelope.type !== DISPUTE_EXTERNAL_EVENT_TYPES.accepted) return;
    await retryOnConflict(DEFAULT_CONFLICT_RETRY_POLICY, () =>
      this.dataSource.transaction(async (manager) => {
        if (!(await claimInboxMessage(manager, INBOX_CONSUMER, envelope.id))) return;
        // Settle first: its projection write must not be undone by the flag's version check.
        if (envelope.type === DISPUTE_EXTERNAL_EVENT_TYPES.accepted) await this.settle(manager, data, { id: envelope.id, correlationId: envelope.correlationId });
        await setOpenDispute(manager, data.merchantId, data.orderId, open, data.version);
      }),
    );
  }

  private async settle(manager: EntityManager, data: DisputeExternalEventData, causation: { id: string; correlationId: string }): Promise<void> {
    if (data.settledAmountMinor === null || !/^[1-9]\d*$/.test(data.settledAmountMinor)) throw new PoisonMessageError(`DisputeAccepted ${data.disputeId} carries no settled amount`);
    const methodCatalog = await loadMethodCatalog(manager, data.merchantId);
    try {
      await handlePaymentOrderCommand(
        this.ledger,
        { manager },
        data.merchantId,
        data.orderId,
        { type: 'SettleIncomingPaymentByDispute', data: { disputeId: data.disputeId, amountMinor: BigInt(data.settledAmountMinor) }, metadata: { now: this.clock.now(), methodCatalog } },
        causation,
      );
    } catch (error) {
      // A refusal (no such incoming order) will not change on retry: dead-letter it for an operator.
      if (error instanceof DomainError) throw new PoisonMessageError(`DisputeAccepted ${data.disputeId} refused by payments: ${error.code} ${error.message}`);
      throw error;
    }
  }
}
