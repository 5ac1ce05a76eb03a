// The broker adapter's consumer side: a fetched batch handled in chunks, under the consumer error policy.
import { setTimeout as sleep } from 'node:timers/promises';
import type { EachBatchPayload, IHeaders } from 'kafkajs';
import { handleInMessageContext, runInSpan, runInTelemetryContext, TRACEPARENT_HEADER } from '@mp/shared-telemetry';
import { SpanKind } from '@opentelemetry/api';
import { parseEnvelope, type MessageEnvelope } from '../envelope';
import { classifyError } from '../error-classification';
import { headerText, MESSAGE_TYPE_HEADER } from './kafka-message-headers';
import { BATCH_HANDLER_MESSAGES_MAX, type ConsumerRun, type Delivery, type KafkaMessage, type PolicyOutcome } from './kafka-consumer-settings';
import { BatchGather } from './kafka-batch-gather';
import { KafkaPublisher } from './kafka-publisher';
import { deadLetterTopicOf, type ConsumedMessages, type ReceivedMessage, type RetryingPartition } from '../messaging-port';

/** Handling what a subscription's consumer fetched: batches, the error policy, dead letters, and their counts. */
export abstract class KafkaConsumerHandling extends KafkaPublisher {
  /** Messages dead-lettered by this process, by logical source topic. */
  protected readonly deadLettered = new Map<string, number>();
  /** By `group topic`: what this process's consumers did with the messages they took. */
  protected readonly consumed = new Map<string, ConsumedMessages>();
  /** By `group topic partition`: the message a paused partition waits to retry. */
  protected readonly retrying = new Map<string, RetryingPartition>();

  /**
   * A fetched batch of one partition, in chunks of up to BATCH_HANDLER_MESSAGES_MAX: when its
   * topic has a batch handler, each chunk goes to it as a whole, in one call with the chunks of
   * the topic's other partitions handed over in the same turn (BatchGather); a lone message
   * with nothing to join it, or a chunk whose call throws, goes message by message through the
   * error policy, exactly as without batching. A heartbeat follows every chunk. Messages of a type the
   * subscription does not accept are passed over (their offsets resolved) before any decoding.
   * A message the policy will try again ends the batch unresolved: the partition is paused, and
   * once resumed kafkajs fetches it again from that message, so nothing behind it is handled
   * first and nothing of it stays in memory meanwhile.
   */
  protected async handleBatch(payload: EachBatchPayload, run: ConsumerRun): Promise<void> {
    const { topic, partition } = payload.batch;
    const resolveOffset = (offset: string) => {
      payload.resolveOffset(offset);
      run.uncommitted.set(`${topic} ${partition}`, { topic, partition, offset });
    };
    await this.handleBatchMessages({ ...payload, resolveOffset }, run);
    // The batch in hand when the subscription stops commits itself (OFFSET_COMMIT_INTERVAL_MS).
    if (run.isStopping()) await run.commitHandled().catch(() => undefined);
    await this.lingerBeforeNextFetch(payload, run);
  }

  /**
   * The fetch linger (`fetchLingerMs`): after a fetch that brought messages, the next one starts
   * no sooner than the linger after it, so messages arriving meanwhile come in one fetch and one
   * batch instead of one each. kafkajs fetches again only once every batch of a fetch is handled,
   * so waiting at the end of a batch delays that next fetch; the batches of one fetch share its
   * time, so only the first of them waits. A fetch that comes back empty is not handed to us, and
   * an idle consumer keeps long-polling the broker (CONSUMER_FETCH_WAIT_MS): a lone message is
   * handled at once, and nothing polls faster when there is no traffic. kafkajs has no linger of
   * its own on the consumer side (its minBytes/maxWaitTime would poll every linger while idle).
   */
  private async lingerBeforeNextFetch(payload: EachBatchPayload, run: ConsumerRun): Promise<void> {
    const lingerMs = run.request.fetchLingerMs ?? 0;
    if (lingerMs <= 0 || payload.batch.messages.length === 0) return;
    const waitMs = run.lastFetchAtMs + lingerMs - Date.now();
    if (waitMs <= 0 || !payload.isRunning() || run.isStopping()) return;
    const lingered = await sleep(waitMs, true, { signal: run.stopped.signal }).catch(() => false);
    if (lingered) await payload.heartbeat();
  }

  private async handleBatchMessages(payload: EachBatchPayload, run: ConsumerRun): Promise<void> {
    const { batch, resolveOffset, heartbeat, pause, isRunning, isStale } = payload;
    const batchHandler = run.request.batch && run.batchTopics.has(batch.topic) ? run.request.batch : null;
    for (let start = 0; start < batch.messages.length; start += BATCH_HANDLER_MESSAGES_MAX) {
      if (!isRunning() || isStale()) return;
      const chunk = batch.messages.slice(start, start + BATCH_HANDLER_MESSAGES_MAX);
      const passedOver = new Set(chunk.filter((message) => this.passedOverByHeader(run, batch.topic, message)));
      this.countConsumed(run, batch.topic, 'skippedUndecoded', passedOver.size);
      const wanted = chunk.filter((message) => !passedOver.has(message));
      const decoded = batchHandler && wanted.length > 0 ? this.receivedMessages(batch.topic, batch.partition, wanted) : null;
      if (batchHandler && decoded) {
        const accepted = decoded.filter((message) => this.accepts(run, batch.topic, message.envelope.type));
        try {
          const firstHeaders = wanted.find((message) => message.offset === accepted[0]?.offset)?.headers;
          // With the other partitions' batches of this turn, in one call (BatchGather); a lone
          // message comes back `alone` and goes through the error policy below.
          const outcome = accepted.length > 0 ? await this.gatherOf(run, batch.topic, batchHandler.handle).submit(accepted, firstHeaders) : 'handled';
          if (outcome === 'handled') {
            this.countConsumed(run, batch.topic, 'handled', accepted.length);
            this.countConsumed(run, batch.topic, 'skippedDecoded', decoded.length - accepted.length);
            chunk.forEach((message) => resolveOffset(message.offset));
            await heartbeat();
            continue;
          }
        } catch (error) {
          this.log(
            'warn',
            `batch of ${accepted.length} on ${batch.topic}[${batch.partition}] failed as a whole, handling its messages one by one: ${String(error)}`,
          );
        }
      }
      // What was decoded above is not decoded again (a lone message comes here every time).
      const decodedEnvelopes = decoded && new Map(decoded.map((received) => [received.offset, received.envelope]));
      for (const message of chunk) {
        if (!isRunning() || isStale()) return;
        const delivery = { topic: batch.topic, partition: batch.partition, message, pause };
        if (!passedOver.has(message) && (await this.handleWithPolicy(delivery, run, decodedEnvelopes?.get(message.offset))) === 'retryLater') return;
        resolveOffset(message.offset);
        await heartbeat();
      }
    }
  }

  /** The topic's gather of batches into one handler call (made on first use; one per physical topic). */
  private gatherOf(run: ConsumerRun, topic: string, handle: (messages: ReceivedMessage[]) => Promise<void>): BatchGather {
    let gather = run.gathers.get(topic);
    if (!gather) {
      gather = new BatchGather((messages, firstHeaders) => this.handleBatchTraced(messages, firstHeaders, handle), BATCH_HANDLER_MESSAGES_MAX);
      run.gathers.set(topic, gather);
    }
    return gather;
  }

  /**
   * Whether the message's type header names a type its topic's subscription does not accept. A
   * message without the header (published before it existed) is decoded and judged by its
   * envelope instead.
   */
  private passedOverByHeader(run: ConsumerRun, topic: string, message: KafkaMessage): boolean {
    const accepted = run.acceptedTypes.get(topic);
    if (!accepted) return false;
    const type = headerText(message.headers, MESSAGE_TYPE_HEADER);
    return type !== undefined && !accepted.has(type);
  }

  private accepts(run: ConsumerRun, topic: string, type: string): boolean {
    return run.acceptedTypes.get(topic)?.has(type) ?? true;
  }

  private countConsumed(run: ConsumerRun, topic: string, outcome: 'handled' | 'skippedUndecoded' | 'skippedDecoded', messages = 1): void {
    if (messages === 0) return;
    const { groupId } = run.request;
    const logical = this.logicalTopic(topic);
    const key = `${groupId} ${logical}`;
    const counts = this.consumed.get(key) ?? { groupId, topic: logical, handled: 0, skippedUndecoded: 0, skippedDecoded: 0 };
    counts[outcome] += messages;
    this.consumed.set(key, counts);
  }

  /**
   * A batch handled in one consumer span continuing the first message's trace, with the
   * correlation id in the context when the batch shares one; each message still gets its own
   * "handled" line under its own correlation id.
   */
  private async handleBatchTraced(
    messages: ReceivedMessage[],
    firstHeaders: IHeaders | undefined,
    handle: (messages: ReceivedMessage[]) => Promise<void>,
  ): Promise<void> {
    const [first] = messages;
    const correlationIds = new Set(messages.map((message) => message.envelope.correlationId));
    const startedAt = performance.now();
    await runInSpan(
      `${first.topic} process`,
      SpanKind.CONSUMER,
      { [TRACEPARENT_HEADER]: headerText(firstHeaders, TRACEPARENT_HEADER) ?? first.envelope.traceparent },
      correlationIds.size === 1 ? { correlationId: first.envelope.correlationId } : {},
      {
        'messaging.system': 'kafka',
        'messaging.operation.type': 'process',
        'messaging.destination.name': first.topic,
        'messaging.batch.message_count': messages.length,
      },
      () => handle(messages),
    );
    const durationMs = performance.now() - startedAt;
    for (const message of messages) runInTelemetryContext({ correlationId: message.envelope.correlationId }, () => this.logHandled(message, durationMs));
  }

  /** One line per handled message, like an HTTP access line: what, where, how long (the batch's time for a batch). */
  private logHandled(message: ReceivedMessage, durationMs: number): void {
    this.log('info', `handled ${message.envelope.type} ${message.topic}[${message.partition}]@${message.offset} in ${durationMs.toFixed(1)} ms`);
  }

  /** Messages as handlers see them; null if any is unparseable (the policy deals with it alone). */
  private receivedMessages(topic: string, partition: number, messages: KafkaMessage[]): ReceivedMessage[] | null {
    try {
      return messages.map((message) => ({
        topic: this.logicalTopic(topic),
        partition,
        offset: message.offset,
        key: message.key?.toString('utf8') ?? null,
        envelope: parseEnvelope(message.value),
      }));
    } catch {
      return null;
    }
  }

  /**
   * The consumer error policy, in one place:
   * - poison (unparseable, schema-invalid): dead-letter at once, then commit;
   * - transient (database or network down): retry with capped backoff until it succeeds,
   *   keeping the partition's order; nothing is dead-lettered for an outage;
   * - anything else: retry up to `attemptsMax` times, then dead-letter and commit, so one
   *   bad message cannot block its partition forever (nestjs/nest#14664).
   * A retry does not wait in place: the partition is paused for the backoff, so the consumer
   * holds nothing of it meanwhile and its other partitions keep moving; the attempt count lives
   * in `retrying`, by partition and offset, until the message is done with. No attempt is cut
   * short by a timeout: a handler cannot be cancelled, and a second attempt started beside a
   * first one still running would break the partition's order.
   */
  private async handleWithPolicy(delivery: Delivery, run: ConsumerRun, decodedEnvelope?: MessageEnvelope): Promise<PolicyOutcome> {
    const { topic, partition, message } = delivery;
    const { request, policy } = run;
    const logical = this.logicalTopic(topic);
    const retryKey = `${request.groupId} ${logical} ${partition}`;
    const previous = this.retrying.get(retryKey);
    const attempt = previous?.offset === message.offset ? previous.attempts + 1 : 1;
    try {
      const envelope = decodedEnvelope ?? parseEnvelope(message.value);
      if (!this.accepts(run, topic, envelope.type)) {
        this.countConsumed(run, topic, 'skippedDecoded');
      } else {
        const received: ReceivedMessage = { topic: logical, partition, offset: message.offset, key: message.key?.toString('utf8') ?? null, envelope };
        const startedAt = performance.now();
        await handleInMessageContext(received, headerText(message.headers, TRACEPARENT_HEADER), async () => {
          await request.handler(received);
          this.logHandled(received, performance.now() - startedAt);
        });
        this.countConsumed(run, topic, 'handled');
      }
    } catch (error) {
      const kind = classifyError(error);
      if (kind === 'poison' || (kind === 'unknown' && attempt >= policy.attemptsMax)) {
        this.log('error', `dead-lettering ${topic}[${partition}]@${message.offset} after ${attempt} attempt(s): ${String(error)}`);
        await this.deadLetter(delivery, error, attempt);
      } else {
        this.retryLater(delivery, run, { groupId: request.groupId, topic: logical, partition, offset: message.offset, attempts: attempt, kind }, error);
        return 'retryLater';
      }
    }
    this.retrying.delete(retryKey);
    return 'done';
  }

  /**
   * Pauses the partition for the backoff and resumes it after. While the subscription stops it
   * only leaves the message uncommitted, which hands it to whoever owns the partition next.
   */
  private retryLater(delivery: Delivery, run: ConsumerRun, waiting: RetryingPartition, error: unknown): void {
    if (run.isStopping()) return;
    const { policy } = run;
    const delayMs = Math.min(policy.retryDelayInitialMs * 2 ** (waiting.attempts - 1), policy.retryDelayMaxMs);
    this.log(
      'warn',
      `retrying ${delivery.topic}[${delivery.partition}]@${waiting.offset} in ${delayMs} ms, its partition paused (attempt ${waiting.attempts}, ${waiting.kind}): ${String(error)}`,
    );
    this.retrying.set(`${waiting.groupId} ${waiting.topic} ${waiting.partition}`, waiting);
    const resume = delivery.pause();
    const timer = setTimeout(() => {
      run.resumeTimers.delete(timer);
      resume();
    }, delayMs);
    run.resumeTimers.add(timer);
  }

  private async deadLetter(delivery: Delivery, error: unknown, attempts: number): Promise<void> {
    const { topic, partition, message } = delivery;
    await this.producer.send({
      topic: deadLetterTopicOf(topic),
      acks: -1,
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            ...message.headers,
            'dlq-source-topic': topic,
            'dlq-source-partition': String(partition),
            'dlq-source-offset': message.offset,
            'dlq-attempts': String(attempts),
            'dlq-error': String(error).slice(0, 1_000),
          },
        },
      ],
    });
    const sourceTopic = this.logicalTopic(topic);
    this.deadLettered.set(sourceTopic, (this.deadLettered.get(sourceTopic) ?? 0) + 1);
  }
}
