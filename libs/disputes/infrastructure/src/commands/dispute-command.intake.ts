import { Inject, Injectable } from '@nestjs/common';
import type { DisputeCommandType, OpenDisputeCommandData } from '@mp/contracts-disputes';
import { COMMAND_REPLY_TYPE } from '@mp/contracts-payments';
import { CommandIntake, type ReplyPort } from '@mp/shared-command-handling';
import { MESSAGE_BROKER, type MessageEnvelope } from '@mp/shared-messaging';
import { DataSource, type EntityManager } from 'typeorm';
import { CLOCK, DISPUTES_SETTINGS, type Clock, type DisputesSettings } from '../disputes-settings';
import { discardUnclaimedReceipt } from '../receipts/dispute-receipts.store';
import { handleDisputeCommand } from './dispute.stream';
import { DISPUTE_COMMANDS } from './wire/dispute-commands.registry';

const INBOX_CONSUMER = 'disputes.commands';

/**
 * Takes in `disputes.commands` (endpoint 14's opens; only the gateway writes the topic) through
 * the shared intake (CommandIntake). Each wire command's own file (wire/, one per type) says
 * what it reads and which domain command it is; this class runs that on the dispute's stream
 * (dispute.stream.ts). Each runs in one transaction: inbox claim, the decider, the append, the
 * projection and the external events; for a refusal, the reply once that has committed. Consecutive
 * commands of one partition share one transaction (`handleAll`). A version conflict (ten opens
 * of one order at once) rolls a batch back; the port then hands its commands over one at a
 * time, and a single command reruns its whole transaction, which then decides on the dispute
 * the winner opened.
 *
 * An accepted open is answered by payments, after it has applied the PENDING overlay (the
 * DisputeOpened event carries this command's `replyTo`); a refused one is answered here. Either
 * way the receipt follows the outcome in this transaction: attached to the dispute by the
 * stream, or deleted by `onRejected`.
 */
@Injectable()
export class DisputeCommandIntake {
  private readonly intake: CommandIntake<DisputeCommandType>;

  constructor(
    dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(DISPUTES_SETTINGS) private readonly settings: DisputesSettings,
    @Inject(MESSAGE_BROKER) broker: ReplyPort,
  ) {
    this.intake = new CommandIntake(dataSource, {
      inbox: INBOX_CONSUMER,
      replies: broker,
      contract: DISPUTE_COMMANDS.contract,
      reply: { type: COMMAND_REPLY_TYPE, source: 'disputes' },
      run: async (manager, envelope) => {
        await this.run(manager, envelope);
        // Answered by payments once accepted (see the class comment).
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

  /** The wire command's file (wire/dispute-commands.registry.ts) turns it into the domain command; the stream runs it. */
  private async run(manager: EntityManager, envelope: MessageEnvelope): Promise<void> {
    const context = { manager, now: this.clock.now(), reviewWindowHours: this.settings.reviewWindowHours };
    const { merchantId, orderId, command } = await DISPUTE_COMMANDS.resolve(context, envelope);
    await handleDisputeCommand(manager, merchantId, orderId, command, { id: envelope.id, correlationId: envelope.correlationId }, envelope.replyTo);
  }
}
