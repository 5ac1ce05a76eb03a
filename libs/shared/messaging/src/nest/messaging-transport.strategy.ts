import { applyDecorators, Catch, UseFilters, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { BaseRpcContext, EventPattern, Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { lastValueFrom, throwError, type Observable } from 'rxjs';
import { PoisonMessageError } from '../envelope';
import type { ConsumerErrorPolicy, MessageBroker, ReceivedMessage, Subscription } from '../messaging-port';

export interface MessagingTransportOptions {
  /** The consumer group every replica of the service joins: each message goes to one replica. */
  groupId: string;
  startFrom: 'earliest' | 'latest';
  errorPolicy?: ConsumerErrorPolicy;
  /** See SubscriptionRequest.fetchLingerMs: only for groups whose latency budget allows it. */
  fetchLingerMs?: number;
}

/** What a handler gets besides the message: where it came from (`@Ctx()`). */
export class MessagingContext extends BaseRpcContext<[ReceivedMessage]> {
  get message(): ReceivedMessage {
    return this.args[0];
  }
}

/**
 * Hands every error back to the messaging port unchanged. Nest's default RPC filter turns any
 * error into `{ status: 'error', message: 'Internal server error' }`, and the port's error
 * policy needs the error itself to tell poison (dead-letter at once) from an outage (retry,
 * keeping order) from anything else (N attempts, then dead-letter).
 */
@Catch()
export class PassErrorsToMessagingPort implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => exception);
  }
}

export interface ConsumeTopicOptions {
  /**
   * The envelope types the handler acts on. Any other type on the topic is passed over by the
   * port before it is decoded (no handler call, inbox claim nor transaction; its offset is
   * committed). Absent: every type. A service that has no work for most of a topic's messages
   * declares this, so it does not pay for them.
   */
  types?: readonly string[];
}

const BATCH_EXTRA = 'messagingBatch';
const TYPES_EXTRA = 'messagingTypes';

function handlerExtras(topic: string, options: ConsumeTopicOptions): Record<string, unknown> {
  if (options.types === undefined) return {};
  if (options.types.length === 0) throw new Error(`@ConsumeTopicInBatches(${topic}) declares no types: a handler that acts on nothing should not exist`);
  return { [TYPES_EXTRA]: [...options.types] };
}

/**
 * Declares a handler of the messages on `topic` (a logical topic name, as in the contracts): all
 * of them, or only `options.types`. It takes several consecutive messages of one partition at
 * once: its `@Payload()` is a `ReceivedMessage[]` (one element when the messages come singly). Resolving means all of them are done with; throwing makes the port hand the same
 * messages to this handler again one at a time, each under the error policy.
 */
export function ConsumeTopicInBatches(topic: string, options: ConsumeTopicOptions = {}): MethodDecorator {
  return applyDecorators(EventPattern(topic, { ...handlerExtras(topic, options), [BATCH_EXTRA]: true }), UseFilters(PassErrorsToMessagingPort));
}

/**
 * A Nest microservice transport over the messaging port, so services declare consumers with
 * `@EventPattern` / `@ConsumeTopicInBatches` on controllers and connect them with
 * `app.connectMicroservice({ strategy })`. It subscribes one consumer group to every topic
 * a handler is declared for.
 *
 * Only the routing is Nest's: delivery, per-key ordering and the error policy stay in the port
 * (`MessageBroker.subscribe`), so swapping kafkajs never touches a controller. Nest's own
 * `handleEvent` is not used because it swallows handler errors (the offset would be committed
 * after a failure); here the handler's outcome is awaited and any error goes back to the port.
 * There is no request-reply on this transport: Nest's Kafka request-reply loses replies on a
 * rebalance (nestjs/nest#2984); services send replies to the asking replica's own reply topic
 * instead (ReplySender in libs/shared/command-handling).
 */
export class MessagingTransportStrategy extends Server implements CustomTransportStrategy {
  private subscription: Subscription | null = null;

  constructor(
    private readonly broker: MessageBroker,
    private readonly options: MessagingTransportOptions,
  ) {
    super();
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      const topics = [...this.messageHandlers.keys()];
      if (topics.length === 0) throw new Error(`consumer group ${this.options.groupId} has no @EventPattern handlers`);
      const unsupported = topics.filter((topic) => !this.messageHandlers.get(topic)?.isEventHandler);
      if (unsupported.length > 0) throw new Error(`@MessagePattern (request-reply) is not supported on this transport: ${unsupported.join(', ')}`);
      const batchTopics = topics.filter((topic) => this.takesBatches(topic));
      this.subscription = await this.broker.subscribe({
        groupId: this.options.groupId,
        topics,
        startFrom: this.options.startFrom,
        errorPolicy: this.options.errorPolicy,
        fetchLingerMs: this.options.fetchLingerMs,
        handler: (message) => (this.takesBatches(message.topic) ? this.dispatchBatch([message]) : this.dispatch(message)),
        acceptedTypes: this.acceptedTypes(topics),
        ...(batchTopics.length > 0 ? { batch: { topics: batchTopics, handle: (messages) => this.dispatchBatch(messages) } } : {}),
      });
      await this.subscription.ready;
      this.logger.log(`group ${this.options.groupId} consuming ${topics.join(', ')}`);
      callback();
    } catch (error) {
      callback(error);
    }
  }

  private dispatch(message: ReceivedMessage): Promise<void> {
    return this.invoke(message.topic, message, message);
  }

  /**
   * By topic, the types its handlers declare. Nest chains several handlers of one topic; the topic
   * is filtered only when every one of them declares its types, and then by all of them together.
   */
  private acceptedTypes(topics: string[]): Record<string, readonly string[]> {
    const accepted: Record<string, readonly string[]> = {};
    for (const topic of topics) {
      const declared: string[] = [];
      let everyType = false;
      for (let handler = this.messageHandlers.get(topic); handler; handler = handler.next as MessageHandler | undefined) {
        const types = handler.extras?.[TYPES_EXTRA] as string[] | undefined;
        if (types) declared.push(...types);
        else everyType = true;
      }
      if (!everyType) accepted[topic] = [...new Set(declared)];
    }
    return accepted;
  }

  private takesBatches(topic: string): boolean {
    return this.messageHandlers.get(topic)?.extras?.[BATCH_EXTRA] === true;
  }

  /** Messages of one topic and partition, to a `ConsumeTopicInBatches` handler. */
  private async dispatchBatch(messages: ReceivedMessage[]): Promise<void> {
    const [first] = messages;
    if (first) await this.invoke(first.topic, messages, first);
  }

  /** Calls the topic's handler with `payload` and waits for its outcome, errors included. */
  private async invoke(topic: string, payload: ReceivedMessage | ReceivedMessage[], contextMessage: ReceivedMessage): Promise<void> {
    const handler = this.getHandlerByPattern(topic);
    // Cannot happen for a topic subscribed above; a message nobody handles must not pass silently.
    if (!handler) throw new PoisonMessageError(`no handler for topic ${topic}`);
    const result = await handler(payload, new MessagingContext([contextMessage]));
    await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
  }

  async close(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }

  /** This transport emits no events of its own. */
  on(): void {
    throw new Error('MessagingTransportStrategy does not emit events');
  }

  unwrap<T>(): T {
    return this.broker as T;
  }
}
