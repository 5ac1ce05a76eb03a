import { Inject, Injectable } from '@nestjs/common';
import { COMMAND_REPLY_TYPE } from '@mp/contracts-payments';
import { WITHDRAWAL_COMMAND_SCHEMA_VERSION, type WithdrawalCommandDataByType, type WithdrawalCommandReplyData, type WithdrawalCommandType } from '@mp/contracts-withdrawals';
import type { LedgerHolds } from '@mp/ledger-client';
import { CommandIntake } from '@mp/shared-command-handling';
import { PoisonMessageError, type MessageEnvelope } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { toWithdrawalStreamId, type NetworkAnswer, type WithdrawalCommand } from '@mp/withdrawals-domain';
import { DataSource, type EntityManager } from 'typeorm';
import { findWithdrawal, reconciliationToView, withdrawalToView } from '../persistence/withdrawal.projection';
import { NETWORK_ADAPTER, type NetworkAdapter } from '../sending/network-adapter.port';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from '../withdrawals-settings';
import { WITHDRAWAL_COMMAND_PAYLOADS } from './withdrawal-command.payloads';
import { handleWithdrawalCommand, LEDGER_HOLDS } from './withdrawal.handling';

const INBOX_CONSUMER = 'withdrawals.commands';

interface Resolved {
  merchantId: string;
  orderId: string;
  command: WithdrawalCommand;
}

/**
 * Handles `withdrawals.commands` like payments handles its commands, through the shared intake
 * (CommandIntake): one transaction claims the command in the inbox, runs it on the shared
 * command core (placing the hold first for a new withdrawal) and writes the events and the
 * reply to the outbox; all of it commits or none of it does. Consecutive commands of one
 * partition share one transaction (`handleAll`). A reconciliation asks the network in `resolve`,
 * before the transaction opens (never while holding it), so a batch's transaction stays short.
 */
@Injectable()
export class WithdrawalCommandHandler {
  private readonly intake: CommandIntake<WithdrawalCommandType, Resolved>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds,
    @Inject(WITHDRAWALS_SETTINGS) private readonly settings: WithdrawalsSettings,
    @Inject(NETWORK_ADAPTER) private readonly network: NetworkAdapter,
  ) {
    this.intake = new CommandIntake(dataSource, {
      inbox: INBOX_CONSUMER,
      contract: { schemaVersion: WITHDRAWAL_COMMAND_SCHEMA_VERSION, payloads: WITHDRAWAL_COMMAND_PAYLOADS },
      reply: { type: COMMAND_REPLY_TYPE, source: 'withdrawals' },
      // A refusal found while resolving (a reconciliation the network cannot answer) is the reply.
      prepare: (envelope) => this.resolve(envelope),
      run: (manager, envelope, resolved) => this.run(manager, envelope, resolved),
    });
  }

  handle(envelope: MessageEnvelope): Promise<void> {
    return this.intake.handle(envelope);
  }

  handleAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    return this.intake.handleAll(envelopes);
  }

  private async run(manager: EntityManager, envelope: MessageEnvelope, resolved: Resolved): Promise<Omit<Extract<WithdrawalCommandReplyData, { outcome: 'accepted' }>, 'outcome'>> {
    const result = await handleWithdrawalCommand(this.ledger, { manager }, resolved.merchantId, resolved.orderId, resolved.command, { id: envelope.id, correlationId: envelope.correlationId });
    const reconciliation = resolved.command.type === 'ReconcileWithdrawal' ? { reconciliation: reconciliationToView(result.withdrawal.reconciliation) } : {};
    return { withdrawal: withdrawalToView(result.withdrawal), ...reconciliation };
  }

  /** Turns a validated wire command into the domain command (a reconciliation asks the network first). */
  private async resolve(envelope: MessageEnvelope): Promise<Resolved> {
    const now = new Date();
    const type = envelope.type as WithdrawalCommandType;
    switch (type) {
      case 'RequestWithdrawal': {
        const data = envelope.data as WithdrawalCommandDataByType['RequestWithdrawal'];
        const request = { ...data, amountMinor: BigInt(data.amountMinor) };
        return { merchantId: data.merchantId, orderId: data.orderId, command: { type, data: request, metadata: { now, assets: this.settings.assets } } };
      }
      case 'ResolveWithdrawal': {
        const { merchantId, orderId, operatorId, outcome, transactionHash, reason: given } = envelope.data as WithdrawalCommandDataByType['ResolveWithdrawal'];
        const reason = `${given} (resolved by operator ${operatorId})`;
        if (outcome === 'failed') return { merchantId, orderId, command: { type: 'FailWithdrawal', data: { reason, resolvedBy: 'operator' }, metadata: { now } } };
        if (transactionHash === undefined) throw new PoisonMessageError(`malformed ${envelope.type} payload: a completed resolution needs transactionHash`);
        return { merchantId, orderId, command: { type: 'CompleteWithdrawal', data: { transactionHash, resolvedBy: 'operator', reason }, metadata: { now } } };
      }
      case 'ReconcileWithdrawal': {
        const { merchantId, orderId, operatorId } = envelope.data as WithdrawalCommandDataByType['ReconcileWithdrawal'];
        // Never ask the network about a key no withdrawal owns (the simulator would claim it as dropped).
        if (!(await findWithdrawal(this.dataSource.manager, merchantId, orderId))) throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
        const idempotencyKey = toWithdrawalStreamId(merchantId, orderId);
        const askedAt = new Date();
        const answer = await this.askNetwork(idempotencyKey, merchantId);
        return { merchantId, orderId, command: { type: 'ReconcileWithdrawal', data: { evidence: { operatorId, idempotencyKey, askedAt: askedAt.toISOString(), answer } }, metadata: { now: askedAt } } };
      }
      default: {
        const unknownType: never = type;
        throw new PoisonMessageError(`unknown command type ${String(unknownType)}`);
      }
    }
  }

  /** The network's answer; not knowing is a retryable refusal, never a guess. */
  private async askNetwork(idempotencyKey: string, merchantId: string): Promise<NetworkAnswer> {
    try {
      return await this.network.lookup(idempotencyKey, merchantId);
    } catch (error) {
      throw new DomainError('SERVICE_UNAVAILABLE', `The network did not answer about ${idempotencyKey} (${String(error)}); reconcile again later`);
    }
  }
}
