import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  agentViewOf,
  COMMAND_REPLY_TYPE,
  PAYMENT_COMMAND_TYPES,
  type CommandReplyData,
  type PayerLinkRequest,
  type PaymentCommandType,
} from '@mp/contracts-payments';
import type { PaymentOrderCommand } from '@mp/payments-domain';
import { CommandIntake, merchantLaneOf, type ReplyPort } from '@mp/shared-command-handling';
import { MESSAGE_BROKER, type MessageEnvelope } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource, type EntityManager } from 'typeorm';
import { PayerPageLinks } from '../payer-pages/payer-page-links';
import { findOrder, orderToRow, receiptViewsOf, rowToBackofficeView, rowToView, type PaymentOrderRow } from '../persistence/payment-order.projection';
import { RecipientAccountVault } from '../recipient-accounts/recipient-account.vault';
import { CLOCK, PAYMENTS_SETTINGS, type Clock, type PaymentsSettings } from '../payments-settings';
import { LEDGER_HOLDS, type LedgerHolds } from '../ledger/ledger-holds.port';
import { handlePaymentOrderCommand, loadPaymentOrder } from './payment-order.stream';
import { PAYMENT_COMMANDS } from './wire/payment-commands.registry';
import type { ResolvedPaymentCommand } from './wire/payment-wire-command';

const INBOX_CONSUMER = 'payments.commands';

/**
 * Takes in the commands of `payments.commands` through the shared intake (CommandIntake): the
 * inbox claim, the command on its order and its events in one transaction, all of it or none,
 * and the reply once that has committed. Each wire command's own file (wire/, one per type) says
 * what it reads and which domain command it is; this class runs that on the order's stream
 * (payment-order.stream.ts) and makes the reply. Consecutive commands of one partition share one
 * transaction (`handleAll`): one commit, one inbox statement, one outbox write and one relay pass
 * for all their events, and one publish for their replies; each merchant's commands run in order,
 * side by side with other merchants' (`merchantLaneOf`), so one payout's ledger hold does not
 * hold up the rest. Business rejections are replies like
 * any outcome, so they stay in the batch; anything else rolls the batch back and the messaging
 * port hands the same commands to `handle` one at a time, where each meets the error policy
 * alone (and a version conflict is retried).
 */
@Injectable()
export class PaymentCommandIntake {
  private readonly logger = new Logger(PaymentCommandIntake.name);
  private readonly intake: CommandIntake<PaymentCommandType>;

  constructor(
    dataSource: DataSource,
    @Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
    private readonly payerPageLinks: PayerPageLinks,
    private readonly recipientAccounts: RecipientAccountVault,
    @Inject(MESSAGE_BROKER) broker: ReplyPort,
  ) {
    this.intake = new CommandIntake(dataSource, {
      inbox: INBOX_CONSUMER,
      replies: broker,
      contract: PAYMENT_COMMANDS.contract,
      reply: { type: COMMAND_REPLY_TYPE, source: 'payments' },
      run: (manager, envelope) => this.run(manager, envelope),
      // A payout waits on the ledger for its hold: other merchants' commands go on meanwhile.
      laneOf: merchantLaneOf,
      afterCommit: (committed) => this.crashIfInjected(committed),
    });
  }

  handle(envelope: MessageEnvelope): Promise<void> {
    return this.intake.handle(envelope);
  }

  /** Consecutive commands of one partition in one transaction, in order (see the class comment). */
  handleAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    return this.intake.handleAll(envelopes);
  }

  private crashIfInjected(committed: MessageEnvelope[]): void {
    const envelope = committed.find((candidate) => candidate.type === this.settings.crashAfterCommitOf);
    if (!envelope) return;
    this.logger.warn(`fault injection: crashing after committing ${envelope.type} ${envelope.id}, before its reply is published`);
    process.kill(process.pid, 'SIGKILL');
  }

  /** The command on its order; the accepted reply's fields. A DomainError is the rejection. */
  private async run(manager: EntityManager, envelope: MessageEnvelope): Promise<Omit<Extract<CommandReplyData, { outcome: 'accepted' }>, 'outcome'>> {
    const resolved = await this.resolve(manager, envelope);
    const causation = { id: envelope.id, correlationId: envelope.correlationId };
    // The reply is the order as the command leaves it (the state its projection row is written
    // from) with the row's open-dispute overlay, which no command changes. The overlay is read
    // before the command, so nothing is read back after its writes and they go as one statement
    // with no transaction around them (transactionInFewTrips). A create has no overlay to read
    // unless its order was there already; a command that found its order by the row (the payer's,
    // by token) has read it already.
    const isCreate = resolved.command?.type === 'CreateIncomingPayment' || resolved.command?.type === 'CreateOutgoingPayment';
    const overlay = isCreate ? undefined : (resolved.row ?? (await findOrder(manager, resolved.merchantId, resolved.orderId)));
    const result = resolved.command
      ? await handlePaymentOrderCommand(this.ledger, { manager }, resolved.merchantId, resolved.orderId, resolved.command, causation)
      : { order: await this.currentOrder(manager, resolved.merchantId, resolved.orderId) };
    const created = 'events' in result && result.events.length > 0 && result.version === result.events.length;
    const stored = overlay !== undefined ? overlay : created ? null : await findOrder(manager, resolved.merchantId, resolved.orderId);
    // No redirect_url in the clear: replies travel through Kafka, and the link
    // holds the payer's credential. It goes sealed for the asking gateway process instead.
    const row: PaymentOrderRow = { ...orderToRow(result.order), open_dispute: stored?.open_dispute };
    return {
      order: rowToView(row, null),
      ...(createFoundItsOrder(resolved.command, 'events' in result ? result.events : []) ? { replayed: true } : {}),
      ...this.sealedPayerLink(envelope, row),
      // The agent's answer, from the same state: the gateway needs no read of the order after it.
      ...(AGENT_COMMAND_TYPES.has(envelope.type) ? { agentOrder: agentViewOf(rowToBackofficeView(row, null, receiptViewsOf(result.order))) } : {}),
    };
  }

  /**
   * The pay-in's link sealed for the gateway process that asked (`payerLinkKey`), so the
   * gateway answers a create or cancel without reading the order back over HTTP.
   */
  private sealedPayerLink(envelope: MessageEnvelope, row: PaymentOrderRow): { sealedPayerLink?: string } {
    const { payerLinkKey } = envelope.data as PayerLinkRequest;
    if (!payerLinkKey || row.direction !== 'incoming') return {};
    return { sealedPayerLink: this.payerPageLinks.sealedUrlFor(payerLinkKey, row.merchant_id, row.order_id, row.payer_page_token_hash) };
  }

  private async currentOrder(manager: EntityManager, merchantId: string, orderId: string) {
    const { state } = await loadPaymentOrder(manager, merchantId, orderId);
    if (state.status === 'NotCreated') throw new DomainError('ORDER_NOT_FOUND', `No order ${orderId}`);
    return state;
  }

  /** The wire command's file (wire/payment-commands.registry.ts) turns it into the domain command. */
  private resolve(manager: EntityManager, envelope: MessageEnvelope): Promise<ResolvedPaymentCommand> {
    const context = { manager, now: this.clock.now(), payerPageLinks: this.payerPageLinks, recipientAccounts: this.recipientAccounts };
    return PAYMENT_COMMANDS.resolve(context, envelope);
  }
}

/**
 * A create the decider answered with no event found its order already there with the same
 * parameters (a different one is DUPLICATE_ORDER): the gateway says `Idempotent-Replayed`.
 */
function createFoundItsOrder(command: PaymentOrderCommand | null, decidedEvents: readonly unknown[]): boolean {
  const isCreate = command?.type === 'CreateIncomingPayment' || command?.type === 'CreateOutgoingPayment';
  return isCreate && decidedEvents.length === 0;
}

/** The commands an agent sends through the back office: their replies carry the order as that agent sees it. */
const AGENT_COMMAND_TYPES: ReadonlySet<string> = new Set<PaymentCommandType>([
  PAYMENT_COMMAND_TYPES.agentTakeOrder,
  PAYMENT_COMMAND_TYPES.agentConfirmPayIn,
  PAYMENT_COMMAND_TYPES.agentCompletePayout,
  PAYMENT_COMMAND_TYPES.agentDeclineOrder,
]);
