import { lockHoldPlacement, placeHoldForNewObject, type LedgerHolds } from '@mp/ledger-client';
import {
  WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION,
  WITHDRAWALS_TOPICS,
  withdrawalHoldId,
  withdrawalKey,
  type WithdrawalExternalEventData,
} from '@mp/contracts-withdrawals';
import {
  handleCommand,
  type AppendedEvents,
  type Causation,
  type CommandResult,
  type DecidedEvents,
  type HandleCommandOptions,
} from '@mp/shared-command-handling';
import { eventCodec } from '@mp/shared-decider';
import { createEnvelope, enqueueOutbox } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import {
  toWithdrawalStreamId,
  WITHDRAWAL_EVENT_SCHEMAS,
  withdrawalDecider,
  type ExistingWithdrawal,
  type Withdrawal,
  type WithdrawalCommand,
  type WithdrawalEvent,
} from '@mp/withdrawals-domain';
import type { EntityManager } from 'typeorm';
import { recordLateNetworkResults } from '../persistence/late-network-results';
import { saveWithdrawalProjection, withdrawalToView } from '../persistence/withdrawal.projection';

export const LEDGER_HOLDS = Symbol('LEDGER_HOLDS');

/**
 * Withdrawals on the shared command core. A withdrawal's stream is short by the decider's own
 * rules (requested, a few send attempts, one outcome), so its state is folded from the whole
 * stream.
 */
export const withdrawalEvents = eventCodec(WITHDRAWAL_EVENT_SCHEMAS);

const SOURCE = 'withdrawals';
/** Internal events stay in this service's event store; these are published, mapped to the contract. */
const PUBLISHED: ReadonlySet<WithdrawalEvent['type']> = new Set(['WithdrawalRequested', 'WithdrawalCompleted', 'WithdrawalFailed']);

export interface WithdrawalCommandResult extends CommandResult<Withdrawal, WithdrawalEvent> {
  withdrawal: ExistingWithdrawal;
}

/**
 * Runs one command on one withdrawal: decide, place the ledger hold a new withdrawal needs
 * (before it exists: no hold, no withdrawal), append, then the projection and the external
 * events in the outbox, all in the same transaction. A DomainError leaves nothing written.
 */
export async function handleWithdrawalCommand(
  ledger: LedgerHolds,
  transaction: HandleCommandOptions<Withdrawal, WithdrawalEvent>['transaction'],
  merchantId: string,
  orderId: string,
  command: WithdrawalCommand,
  causation: Causation,
): Promise<WithdrawalCommandResult> {
  const result = await handleCommand(withdrawalDecider, toWithdrawalStreamId(merchantId, orderId), command, {
    transaction,
    codec: withdrawalEvents,
    envelope: { source: SOURCE, subject: `merchant:${merchantId}/withdrawal:${orderId}`, causation },
    beforeAppend: (manager, decided) => placeWithdrawalHold(ledger, manager, orderId, decided),
    afterAppend: async (manager, appended) => {
      await saveWithdrawalProjection(manager, existingWithdrawal(appended.state, orderId), appended.version);
      await recordLateNetworkResults(manager, appended);
      await publishWithdrawalEvents(manager, appended, causation);
    },
  });
  return { ...result, withdrawal: existingWithdrawal(result.state, orderId) };
}

function existingWithdrawal(withdrawal: Withdrawal, orderId: string): ExistingWithdrawal {
  if (withdrawal.status === 'NotRequested') throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
  return withdrawal;
}

/** The external events of the appended ones, each with the withdrawal as it stood after it. */
async function publishWithdrawalEvents(manager: EntityManager, appended: AppendedEvents<Withdrawal, WithdrawalEvent>, causation: Causation): Promise<void> {
  const current = existingWithdrawal(appended.state, '');
  const key = withdrawalKey(current.merchantId, current.orderId);
  let position = appended.versionBefore;
  let snapshot = appended.stateBefore;
  const external = [];
  for (const event of appended.events) {
    position += 1;
    snapshot = withdrawalDecider.evolve(snapshot, event);
    if (!PUBLISHED.has(event.type) || snapshot.status === 'NotRequested') continue;
    const { merchantId, orderId } = snapshot;
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
      envelope: createEnvelope({
        type: event.type,
        schemaVersion: WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION,
        source: SOURCE,
        subject: `merchant:${merchantId}/withdrawal:${orderId}`,
        data,
        correlationId: causation.correlationId,
        causationId: causation.id,
      }),
    });
  }
  await enqueueOutbox(manager, external);
}

/**
 * Amount + network fee of the balance asset, frozen before the withdrawal exists. Idempotent
 * by hold id, so a retry after a crash finds the same hold.
 */
async function placeWithdrawalHold(
  ledger: LedgerHolds,
  manager: EntityManager,
  orderId: string,
  decided: DecidedEvents<Withdrawal, WithdrawalEvent>,
): Promise<void> {
  if (!decided.events.some((event) => event.type === 'WithdrawalRequested')) return;
  const withdrawal = existingWithdrawal(decided.state, orderId);
  const { merchantId } = withdrawal;
  // Until this transaction ends, the ledger's orphan-hold sweep hears "being created" for it.
  await lockHoldPlacement(manager, withdrawalHoldId(merchantId, orderId));
  try {
    const hold = await placeHoldForNewObject(
      ledger,
      {
        hold_id: withdrawalHoldId(merchantId, orderId),
        merchant_id: merchantId,
        currency: withdrawal.balanceAsset,
        amount_minor: withdrawal.amountMinor.toString(),
        fee_minor: withdrawal.networkFeeMinor.toString(),
        reference: { kind: 'withdrawal', id: orderId },
      },
      'withdrawal',
    );
    if (hold.status === 'pending') return;
  } catch (error) {
    // The hold id is taken with other amounts: an earlier request with this order_id placed
    // it and never came to exist. Any other refusal (INSUFFICIENT_FUNDS, SERVICE_UNAVAILABLE
    // when the ledger is out of reach) goes up as is.
    const holdIdTaken = error instanceof DomainError && error.code === 'VALIDATION_ERROR' && error.details.some((detail) => detail.field === 'hold_id');
    if (!holdIdTaken) throw error;
  }
  // The hold was released as orphaned or belongs to another request: a withdrawal without
  // frozen funds must not exist, so this order_id stays unused.
  throw new DomainError('DUPLICATE_ORDER', `order_id ${orderId} was used by an earlier withdrawal request that did not complete; send it with a new order_id`, [
    { field: 'order_id', issue: 'already used by an abandoned request' },
  ]);
}
