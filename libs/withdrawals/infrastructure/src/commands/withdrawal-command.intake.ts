import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@mp/shared-util-clock';
import { COMMAND_REPLY_TYPE } from '@mp/contracts-payments';
import type { WithdrawalCommandReplyData, WithdrawalCommandType } from '@mp/contracts-withdrawals';
import type { LedgerHolds } from '@mp/ledger-client';
import { CommandIntake, merchantLaneOf, type ReplyPort } from '@mp/shared-command-handling';
import { MESSAGE_BROKER, type MessageEnvelope } from '@mp/shared-messaging';
import { DataSource, type EntityManager } from 'typeorm';
import { reconciliationToView, withdrawalToView } from '../persistence/withdrawal.projection';
import { NETWORK_ADAPTER, type NetworkAdapter } from '../sending/network-adapter.port';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from '../withdrawals-settings';
import { handleWithdrawalCommand, LEDGER_HOLDS } from './withdrawal.stream';
import { WITHDRAWAL_COMMANDS } from './wire/withdrawal-commands.registry';
import type { ResolvedWithdrawalCommand } from './wire/withdrawal-wire-command';

const INBOX_CONSUMER = 'withdrawals.commands';

/**
 * Takes in `withdrawals.commands` like payments takes in its commands, through the shared intake
 * (CommandIntake). Each wire command's own file (wire/, one per type) says what it reads and
 * which domain command it is; this class runs that on the withdrawal's stream
 * (withdrawal.stream.ts) and makes the reply. One transaction claims the command in the inbox,
 * runs it on the shared command core (placing the hold first for a new withdrawal) and writes
 * the events to the outbox; all of it commits or none of it does, and the reply is sent once it
 * has. Consecutive
 * commands of one partition share one transaction (`handleAll`), each merchant's in order and
 * side by side with other merchants' (`merchantLaneOf`). A reconciliation asks the
 * network in its `resolve`, before the transaction opens (never while holding it), so a batch's
 * transaction stays short.
 */
@Injectable()
export class WithdrawalCommandIntake {
  private readonly intake: CommandIntake<WithdrawalCommandType, ResolvedWithdrawalCommand>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds,
    @Inject(WITHDRAWALS_SETTINGS) private readonly settings: WithdrawalsSettings,
    @Inject(NETWORK_ADAPTER) private readonly network: NetworkAdapter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MESSAGE_BROKER) broker: ReplyPort,
  ) {
    this.intake = new CommandIntake(dataSource, {
      inbox: INBOX_CONSUMER,
      replies: broker,
      contract: WITHDRAWAL_COMMANDS.contract,
      reply: { type: COMMAND_REPLY_TYPE, source: 'withdrawals' },
      // A refusal found while resolving (a reconciliation the network cannot answer) is the reply.
      prepare: (envelope) => this.resolve(envelope),
      run: (manager, envelope, resolved) => this.run(manager, envelope, resolved),
      // A new withdrawal waits on the ledger for its hold: other merchants' commands go on meanwhile.
      laneOf: merchantLaneOf,
    });
  }

  handle(envelope: MessageEnvelope): Promise<void> {
    return this.intake.handle(envelope);
  }

  handleAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    return this.intake.handleAll(envelopes);
  }

  private async run(
    manager: EntityManager,
    envelope: MessageEnvelope,
    resolved: ResolvedWithdrawalCommand,
  ): Promise<Omit<Extract<WithdrawalCommandReplyData, { outcome: 'accepted' }>, 'outcome'>> {
    const result = await handleWithdrawalCommand(this.ledger, { manager }, resolved.merchantId, resolved.orderId, resolved.command, {
      id: envelope.id,
      correlationId: envelope.correlationId,
    });
    const reconciliation = resolved.command.type === 'ReconcileWithdrawal' ? { reconciliation: reconciliationToView(result.withdrawal.reconciliation) } : {};
    return { withdrawal: withdrawalToView(result.withdrawal), ...reconciliation };
  }

  /** The wire command's file (wire/withdrawal-commands.registry.ts) turns it into the domain command. */
  private resolve(envelope: MessageEnvelope): Promise<ResolvedWithdrawalCommand> {
    const context = { manager: this.dataSource.manager, now: this.clock.now(), assets: this.settings.assets, network: this.network };
    return WITHDRAWAL_COMMANDS.resolve(context, envelope);
  }
}
