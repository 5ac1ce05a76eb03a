import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  COMMAND_REPLY_TYPE,
  PAYMENT_COMMAND_SCHEMA_VERSION,
  PAYMENT_COMMAND_TYPES,
  PAYMENT_ORDER_EVENT_SCHEMA_VERSION,
  PAYMENTS_TOPICS,
  paymentOrderKey,
  type CommandReplyData,
  type CreateIncomingPaymentData,
} from '@mp/contracts-payments';
import {
  DEFAULT_METHOD_CATALOG,
  decide,
  evolve,
  foldPaymentOrder,
  toPaymentOrderStreamId,
  type ExistingPaymentOrder,
  type PaymentOrder,
  type PaymentOrderCommand,
  type PaymentOrderEvent,
} from '@mp/payments-domain';
import {
  appendToStream,
  claimInboxMessage,
  createEnvelope,
  enqueueOutbox,
  PoisonMessageError,
  readStream,
  StreamVersionConflictError,
  type MessageEnvelope,
  type OutgoingMessage,
} from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource, type EntityManager } from 'typeorm';
import { saveOrderProjection, toPaymentOrderView } from '../persistence/payment-order.projection';
import { CLOCK, PAYMENTS_SETTINGS, type Clock, type PaymentsSettings } from '../payments-settings';

const INBOX_CONSUMER = 'payments.commands';
const SOURCE = 'payments';
// A version conflict means another writer appended to the same order first; re-reading and
// deciding again resolves it. Commands for one order share a partition, so conflicts are rare.
const APPEND_ATTEMPTS_MAX = 3;

/**
 * Handles one command from `payments.commands`: in a single transaction it claims the
 * command in the inbox, decides, appends the events, updates the projection and writes the
 * events and the reply to the outbox. Either all of that commits or none of it does.
 */
@Injectable()
export class PaymentCommandHandler {
  private readonly logger = new Logger(PaymentCommandHandler.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
  ) {}

  async handle(envelope: MessageEnvelope): Promise<void> {
    const command = toDomainCommand(envelope, this.clock.now());
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.dataSource.transaction((manager) => this.handleInTransaction(manager, envelope, command));
        break;
      } catch (error) {
        if (error instanceof StreamVersionConflictError && attempt < APPEND_ATTEMPTS_MAX) continue;
        throw error;
      }
    }
    if (this.settings.crashAfterCommitOf === envelope.type) {
      this.logger.warn(`fault injection: crashing after committing ${envelope.type} ${envelope.id}, before its reply is published`);
      process.kill(process.pid, 'SIGKILL');
    }
  }

  private async handleInTransaction(manager: EntityManager, envelope: MessageEnvelope, command: PaymentOrderCommand): Promise<void> {
    if (!(await claimInboxMessage(manager, INBOX_CONSUMER, envelope.id))) return;

    const { merchantId, orderId } = command.data;
    const streamId = toPaymentOrderStreamId(merchantId, orderId);
    const stream = await readStream(manager, streamId);
    const state = foldPaymentOrder(stream.events.map(toDomainEvent));
    const outgoing: OutgoingMessage[] = [];
    let reply: CommandReplyData;
    try {
      const events = decide(command, state);
      const eventEnvelopes = events.map((event) =>
        createEnvelope({
          type: event.type,
          schemaVersion: PAYMENT_ORDER_EVENT_SCHEMA_VERSION,
          source: SOURCE,
          subject: `merchant:${merchantId}/order:${orderId}`,
          data: event.data,
          correlationId: envelope.correlationId,
          causationId: envelope.id,
          time: command.metadata.now,
        }),
      );
      const version = await appendToStream(manager, streamId, stream.version, eventEnvelopes);
      const nextState = events.reduce<PaymentOrder>(evolve, state);
      const order = assertExists(nextState);
      if (events.length > 0) await saveOrderProjection(manager, order, version);
      const key = paymentOrderKey(merchantId, orderId);
      outgoing.push(...eventEnvelopes.map((event) => ({ topic: PAYMENTS_TOPICS.orderEvents, key, envelope: event })));
      reply = { outcome: 'accepted', order: toPaymentOrderView(order, this.settings.payerPageBaseUrl) };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      reply = { outcome: 'rejected', error: error.toDescription() };
    }

    if (envelope.replyTo) {
      outgoing.push({
        topic: envelope.replyTo,
        key: envelope.correlationId,
        envelope: createEnvelope({
          type: COMMAND_REPLY_TYPE,
          schemaVersion: 1,
          source: SOURCE,
          subject: envelope.subject,
          data: reply,
          correlationId: envelope.correlationId,
          causationId: envelope.id,
        }),
      });
    }
    await enqueueOutbox(manager, outgoing);
  }
}

function assertExists(order: PaymentOrder): ExistingPaymentOrder {
  if (order.status === 'NotCreated') throw new Error('invariant: an accepted create command leaves an existing order');
  return order;
}

function toDomainEvent(envelope: MessageEnvelope): PaymentOrderEvent {
  return { type: envelope.type, data: envelope.data } as PaymentOrderEvent;
}

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** Checks a command's payload; a malformed one can never succeed, so it is poison. */
function toDomainCommand(envelope: MessageEnvelope, now: Date): PaymentOrderCommand {
  if (envelope.schemaVersion !== PAYMENT_COMMAND_SCHEMA_VERSION) {
    throw new PoisonMessageError(`unsupported schema version ${envelope.schemaVersion} of ${envelope.type}`);
  }
  switch (envelope.type) {
    case PAYMENT_COMMAND_TYPES.createIncomingPayment: {
      const data = envelope.data as Partial<CreateIncomingPaymentData>;
      const stringFields = [data.merchantId, data.orderId, data.currency, data.country, data.callbackUrl];
      if (!stringFields.every(isNonEmptyString) || typeof data.amountMinor !== 'string' || !/^[1-9]\d*$/.test(data.amountMinor)) {
        throw new PoisonMessageError(`malformed ${envelope.type} payload`);
      }
      const valid = data as CreateIncomingPaymentData;
      return {
        type: 'CreateIncomingPayment',
        data: { ...valid, amountMinor: BigInt(valid.amountMinor) },
        metadata: { now, payerPageToken: randomBytes(18).toString('base64url'), methodCatalog: DEFAULT_METHOD_CATALOG },
      };
    }
    default:
      throw new PoisonMessageError(`unknown command type ${envelope.type}`);
  }
}
