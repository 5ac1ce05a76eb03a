import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  COMMAND_REPLY_TYPE,
  PAYMENT_COMMAND_SCHEMA_VERSION,
  payerPageTokenHash,
  type CommandReplyData,
  type PayerLinkRequest,
  type PaymentCommandDataByType,
  type PaymentCommandType,
} from '@mp/contracts-payments';
import { agentOrderNotFound, SANDBOX_AGENT_ID, type PaymentOrderCommand } from '@mp/payments-domain';
import { CommandIntake } from '@mp/shared-command-handling';
import { PoisonMessageError, type MessageEnvelope } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { isTestMerchantId } from '@mp/shared-util-validation';
import { DataSource, type EntityManager } from 'typeorm';
import { PayerPageLinks } from '../payer-pages/payer-page-links';
import { findOrder, findOrderByPayerPageTokenHash, orderToRow, rowToView, type PaymentOrderRow } from '../persistence/payment-order.projection';
import { RecipientAccountVault } from '../recipient-accounts/recipient-account.vault';
import { CLOCK, PAYMENTS_SETTINGS, type Clock, type PaymentsSettings } from '../payments-settings';
import { loadMethodCatalog } from '../reference-data/method-catalog.store';
import { agentServes, findAgent, pickAgentFor } from '../reference-data/payment-agents.store';
import { findReceipt, receiptRefOf } from '../receipts/payout-receipts.store';
import { LEDGER_HOLDS, type LedgerHolds } from '../ledger/ledger-holds.port';
import { PAYMENT_COMMAND_PAYLOADS } from './payment-command.payloads';
import { handlePaymentOrderCommand, loadPaymentOrder } from './payment-order.handling';

const INBOX_CONSUMER = 'payments.commands';

/** Which order a command is about, and the domain command to run on it. */
interface Resolved {
  merchantId: string;
  orderId: string;
  command: PaymentOrderCommand | null;
}

/**
 * Handles the commands of `payments.commands` through the shared intake (CommandIntake): the
 * inbox claim, the command on its order, its events and its reply in one transaction, all of
 * it or none. Consecutive commands of one partition share one transaction (`handleAll`): one
 * commit, one inbox statement, one outbox write and one relay pass for all their events and
 * replies. Business rejections are replies like any outcome, so they stay in the batch; anything
 * else rolls the batch back and the messaging port hands the same commands to `handle` one at
 * a time, where each meets the error policy alone (and a version conflict is retried).
 */
@Injectable()
export class PaymentCommandHandler {
  private readonly logger = new Logger(PaymentCommandHandler.name);
  private readonly intake: CommandIntake<PaymentCommandType>;

  constructor(
    dataSource: DataSource,
    @Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
    private readonly payerPageLinks: PayerPageLinks,
    private readonly recipientAccounts: RecipientAccountVault,
  ) {
    this.intake = new CommandIntake(dataSource, {
      inbox: INBOX_CONSUMER,
      contract: { schemaVersion: PAYMENT_COMMAND_SCHEMA_VERSION, payloads: PAYMENT_COMMAND_PAYLOADS },
      reply: { type: COMMAND_REPLY_TYPE, source: 'payments' },
      run: (manager, envelope) => this.run(manager, envelope),
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
    const result = resolved.command
      ? await handlePaymentOrderCommand(this.ledger, { manager }, resolved.merchantId, resolved.orderId, resolved.command, causation)
      : { order: await this.currentOrder(manager, resolved.merchantId, resolved.orderId) };
    // No redirect_url in the clear: replies travel through the outbox and Kafka, and the link
    // holds the payer's credential. It goes sealed for the asking gateway process instead.
    // The projection row (written in this transaction) carries the open-dispute overlay.
    const row = (await findOrder(manager, resolved.merchantId, resolved.orderId)) ?? orderToRow(result.order);
    return { order: rowToView(row, null), ...(createFoundItsOrder(resolved.command, 'events' in result ? result.events : []) ? { replayed: true } : {}), ...this.sealedPayerLink(envelope, row) };
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

  /** Turns a wire command into the domain command, looking up what the decider needs. */
  private async resolve(manager: EntityManager, envelope: MessageEnvelope): Promise<Resolved> {
    const now = this.clock.now();
    const type = envelope.type as PaymentCommandType;
    switch (type) {
      case 'CreateIncomingPayment': {
        // The link key names the asking gateway process, not the order: it stays out of the decider.
        const { payerLinkKey: _payerLinkKey, ...data } = envelope.data as PaymentCommandDataByType['CreateIncomingPayment'];
        const methodCatalog = await loadMethodCatalog(manager, data.merchantId);
        const tokenHash = payerPageTokenHash(this.payerPageLinks.tokenFor(data.merchantId, data.orderId));
        return {
          merchantId: data.merchantId,
          orderId: data.orderId,
          command: { type, data: { ...data, amountMinor: BigInt(data.amountMinor) }, metadata: { now, payerPageTokenHash: tokenHash, methodCatalog } },
        };
      }
      case 'CreateOutgoingPayment': {
        const { recipientAccountRef, ...data } = envelope.data as PaymentCommandDataByType['CreateOutgoingPayment'];
        const recipientAccount = await this.recipientAccounts.find(manager, data.merchantId, recipientAccountRef);
        if (!recipientAccount) throw new DomainError('VALIDATION_ERROR', 'The recipient account was not stored for this merchant', [{ field: 'account_number', issue: 'unknown recipient account reference' }]);
        const methodCatalog = await loadMethodCatalog(manager, data.merchantId);
        const sameRecipientAccount = await this.recipientAccounts.sameAsPayoutAccount(manager, data.merchantId, data.orderId, recipientAccountRef);
        return {
          merchantId: data.merchantId,
          orderId: data.orderId,
          command: { type, data: { ...data, amountMinor: BigInt(data.amountMinor), recipientAccount }, metadata: { now, methodCatalog, ...(sameRecipientAccount === undefined ? {} : { sameRecipientAccount }) } },
        };
      }
      case 'CancelPaymentOrder': {
        const data = envelope.data as PaymentCommandDataByType['CancelPaymentOrder'];
        return { merchantId: data.merchantId, orderId: data.orderId, command: { type, metadata: { now } } };
      }
      case 'OpenPayerPage': {
        // Sent only when the payer presses "Show payment details", never for a page view.
        const row = await this.payerPageOrder(manager, (envelope.data as PaymentCommandDataByType['OpenPayerPage']).payerPageTokenHash);
        const needsAgent = row.status === 'PENDING' && row.agent_id === null;
        // A test-mode order never reaches a live agent: the sandbox's simulated agent shows its details.
        const agentFor = () => (isTestMerchantId(row.merchant_id) ? SANDBOX_AGENT_ID : pickAgentFor(manager, { method: row.method, country: row.country, currency: row.currency }));
        const agentId = needsAgent ? await agentFor() : null;
        return { merchantId: row.merchant_id, orderId: row.order_id, command: agentId ? { type: 'AssignAgent', data: { agentId }, metadata: { now } } : null };
      }
      case 'MarkPaidByPayer': {
        const row = await this.payerPageOrder(manager, (envelope.data as PaymentCommandDataByType['MarkPaidByPayer']).payerPageTokenHash);
        return { merchantId: row.merchant_id, orderId: row.order_id, command: { type, metadata: { now } } };
      }
      case 'AgentTakeOrder': {
        const data = envelope.data as PaymentCommandDataByType['AgentTakeOrder'];
        const { state } = await loadPaymentOrder(manager, data.merchantId, data.orderId);
        const agent = await findAgent(manager, data.agentId);
        // An agent may take a payout it serves that nobody has taken, or its own again. Anything
        // else (another agent's, a finished one, outside what it serves, none at all) is not
        // found in one identical answer, so nobody can probe which order ids exist.
        // A test-mode payout is the sandbox agent's alone (SandboxAgent), never a live agent's.
        const takeable =
          state.status !== 'NotCreated' && state.direction === 'outgoing' && !!agent && !isTestMerchantId(state.merchantId) &&
          (state.agentId === data.agentId || (state.status === 'PENDING' && state.agentId === null && agentServes(agent, state)));
        if (!takeable) throw agentOrderNotFound();
        return { merchantId: data.merchantId, orderId: data.orderId, command: { type: 'AssignAgent', data: { agentId: data.agentId }, metadata: { now } } };
      }
      case 'AgentConfirmPayIn': {
        const data = envelope.data as PaymentCommandDataByType['AgentConfirmPayIn'];
        return { merchantId: data.merchantId, orderId: data.orderId, command: { type: 'ConfirmIncomingPayment', data: { agentId: data.agentId }, metadata: { now } } };
      }
      case 'AgentDeclineOrder': {
        const data = envelope.data as PaymentCommandDataByType['AgentDeclineOrder'];
        return { merchantId: data.merchantId, orderId: data.orderId, command: { type: 'DeclinePaymentOrder', data: { agentId: data.agentId, reason: data.reason }, metadata: { now } } };
      }
      case 'AgentCompletePayout': {
        const data = envelope.data as PaymentCommandDataByType['AgentCompletePayout'];
        // Whether the order is this agent's is asked before anything about the receipt, so another
        // agent's order and a missing one get the same not-found.
        const { state } = await loadPaymentOrder(manager, data.merchantId, data.orderId);
        if (state.status === 'NotCreated' || state.agentId !== data.agentId) throw agentOrderNotFound();
        const receipt = await findReceipt(manager, data.receiptId);
        if (!receipt || receipt.merchant_id !== data.merchantId || receipt.order_id !== data.orderId || receipt.agent_id !== data.agentId) {
          throw new DomainError('VALIDATION_ERROR', 'The receipt was not uploaded by this agent for this order', [{ field: 'receipt_id', issue: 'unknown for this order' }]);
        }
        return { merchantId: data.merchantId, orderId: data.orderId, command: { type: 'CompleteOutgoingPayment', data: { agentId: data.agentId, receipt: receiptRefOf(receipt) }, metadata: { now } } };
      }
      default: {
        const unknownType: never = type;
        throw new PoisonMessageError(`unknown command type ${String(unknownType)}`);
      }
    }
  }

  private async payerPageOrder(manager: EntityManager, tokenHash: string) {
    const row = await findOrderByPayerPageTokenHash(manager, tokenHash);
    if (!row) throw new DomainError('NOT_FOUND', 'No such payment page');
    return row;
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
