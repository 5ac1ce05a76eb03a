import { Inject, Injectable } from '@nestjs/common';
import type { LedgerHolds } from '@mp/contracts-ledger';
import { WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION, WITHDRAWALS_TOPICS, withdrawalHoldId, withdrawalKey, type WithdrawalExternalEventData } from '@mp/contracts-withdrawals';
import { appendToStream, createEnvelope, enqueueOutbox, readStream, type MessageEnvelope } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import {
  decideWithdrawal,
  evolveWithdrawal,
  initialWithdrawal,
  toWithdrawalStreamId,
  type ExistingWithdrawal,
  type Withdrawal,
  type WithdrawalCommand,
  type WithdrawalEvent,
} from '@mp/withdrawals-domain';
import type { EntityManager } from 'typeorm';
import { saveWithdrawalProjection, withdrawalToView } from '../persistence/withdrawal.projection';

const SOURCE = 'withdrawals';
/** Internal events stay in this service's event store; these are published, mapped to the contract. */
const PUBLISHED: ReadonlySet<WithdrawalEvent['type']> = new Set(['WithdrawalRequested', 'WithdrawalCompleted', 'WithdrawalFailed']);

export const LEDGER_HOLDS = Symbol('LEDGER_HOLDS');

export interface Causation {
  id: string;
  correlationId: string;
}

export interface WithdrawalExecution {
  withdrawal: ExistingWithdrawal;
  events: WithdrawalEvent[];
}

/**
 * Runs one command against one withdrawal inside the caller's transaction: read the stream,
 * decide, place the ledger hold a new withdrawal needs (before it exists: no hold, no
 * withdrawal), append at the version read (optimistic concurrency: a concurrent writer of the
 * same order_id makes this one fail and retry), update the projection and queue the external
 * events. A DomainError leaves nothing written.
 */
@Injectable()
export class WithdrawalExecutor {
  constructor(@Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds) {}

  async load(manager: EntityManager, merchantId: string, orderId: string): Promise<{ state: Withdrawal; version: number }> {
    const stream = await readStream(manager, toWithdrawalStreamId(merchantId, orderId));
    const state = stream.events.map(toDomainEvent).reduce<Withdrawal>(evolveWithdrawal, initialWithdrawal());
    return { state, version: stream.version };
  }

  async execute(manager: EntityManager, merchantId: string, orderId: string, command: WithdrawalCommand, causation: Causation): Promise<WithdrawalExecution> {
    const { state, version } = await this.load(manager, merchantId, orderId);
    const events = decideWithdrawal(command, state);
    const next = events.reduce<Withdrawal>(evolveWithdrawal, state);
    if (next.status === 'NotRequested') throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
    if (events.some((event) => event.type === 'WithdrawalRequested')) await this.placeHold(next);
    if (events.length === 0) return { withdrawal: next, events };

    const streamId = toWithdrawalStreamId(merchantId, orderId);
    const envelopes = events.map((event) =>
      createEnvelope({ type: event.type, schemaVersion: 1, source: SOURCE, subject: `merchant:${merchantId}/withdrawal:${orderId}`, data: event.data, correlationId: causation.correlationId, causationId: causation.id }),
    );
    const newVersion = await appendToStream(manager, streamId, version, envelopes);
    await saveWithdrawalProjection(manager, next, newVersion);

    const key = withdrawalKey(merchantId, orderId);
    let position = version;
    let snapshot: Withdrawal = state;
    const external = [];
    for (const event of events) {
      position += 1;
      snapshot = evolveWithdrawal(snapshot, event);
      if (!PUBLISHED.has(event.type) || snapshot.status === 'NotRequested') continue;
      const data: WithdrawalExternalEventData = {
        merchantId,
        orderId,
        holdId: withdrawalHoldId(merchantId, orderId),
        balanceAsset: snapshot.balanceAsset,
        amountMinor: snapshot.amountMinor.toString(),
        networkFeeMinor: snapshot.networkFeeMinor.toString(),
        version: position,
        occurredAt: snapshot.updatedAt,
        withdrawal: withdrawalToView(snapshot),
      };
      external.push({
        topic: WITHDRAWALS_TOPICS.events,
        key,
        envelope: createEnvelope({ type: event.type, schemaVersion: WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION, source: SOURCE, subject: `merchant:${merchantId}/withdrawal:${orderId}`, data, correlationId: causation.correlationId, causationId: causation.id }),
      });
    }
    await enqueueOutbox(manager, external);
    return { withdrawal: next, events };
  }

  /**
   * Amount + network fee of the balance asset, frozen before the withdrawal exists. Idempotent
   * by hold id, so a retry after a crash finds the same hold.
   */
  private async placeHold(withdrawal: ExistingWithdrawal): Promise<void> {
    const { merchantId, orderId } = withdrawal;
    try {
      const hold = await this.ledger.placeHold({
        hold_id: withdrawalHoldId(merchantId, orderId),
        merchant_id: merchantId,
        currency: withdrawal.balanceAsset,
        amount_minor: withdrawal.amountMinor.toString(),
        fee_minor: withdrawal.networkFeeMinor.toString(),
        reference: { kind: 'withdrawal', id: orderId },
      });
      if (hold.status === 'pending') return;
    } catch (error) {
      // The hold id is taken with other amounts: an earlier request with this order_id placed
      // it and never came to exist. Anything else (INSUFFICIENT_FUNDS, outages) goes up as is.
      const holdIdTaken = error instanceof DomainError && error.code === 'VALIDATION_ERROR' && error.details.some((detail) => detail.field === 'hold_id');
      if (!holdIdTaken) throw error;
    }
    // The hold was released as orphaned or belongs to another request: a withdrawal without
    // frozen funds must not exist, so this order_id stays unused.
    throw new DomainError('DUPLICATE_ORDER', `order_id ${orderId} was used by an earlier withdrawal request that did not complete; send it with a new order_id`, [
      { field: 'order_id', issue: 'already used by an abandoned request' },
    ]);
  }
}

export function toDomainEvent(envelope: MessageEnvelope): WithdrawalEvent {
  return { type: envelope.type, data: envelope.data } as WithdrawalEvent;
}

