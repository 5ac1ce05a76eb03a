/**
 * Goal: one trace and one correlation id follow a message across the real Kafka broker, sent
 * directly or relayed later from the outbox. Method: an in-memory span exporter on this
 * process's tracer provider, the real Kafka adapter publishing inside a producer span and
 * consuming in a group; the consumer span must carry the producer's trace id and the handler
 * must see the message's correlation id.
 */
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { currentTelemetryContext, runInSpan, startTracing } from '@mp/shared-telemetry';
import { eventually } from '@mp/shared-testing';
import { createEnvelope } from '../envelope';
import type { ReceivedMessage } from '../messaging-port';
import { MessagingSchema1700000000000 } from '../postgres/messaging-schema.migration';
import { enqueueOutbox } from '../postgres/outbox';
import { OutboxRelay } from '../postgres/outbox-relay';
import { KafkaMessageBroker } from './kafka-message-broker';

const runId = `t${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');
const spans = new InMemorySpanExporter();
const provider = startTracing('tracing-test', {}, [new SimpleSpanProcessor(spans)]);

describe('trace context and correlation id across Kafka', () => {
  let broker: KafkaMessageBroker;
  let dataSource: DataSource;
  let databaseUrl: string;
  const handled = new Map<string, { correlationId?: string; traceId?: string }>();

  beforeAll(async () => {
    const admin = new Client({ connectionString: process.env['TEST_PG_ADMIN_URL'] });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${runId}"`);
    await admin.end();
    const url = new URL(process.env['TEST_PG_ADMIN_URL'] ?? '');
    url.pathname = `/${runId}`;
    databaseUrl = url.toString();
    dataSource = new DataSource({ type: 'postgres', url: databaseUrl, migrations: [MessagingSchema1700000000000] });
    await dataSource.initialize();
    await dataSource.runMigrations();
    broker = new KafkaMessageBroker({ clientId: 'tracing-test', brokers, namespace: runId, log: () => undefined });
    await broker.connect();
    await broker.ensureTopics([{ topic: 'things', partitions: 1 }]);
    const subscription = await broker.subscribe({
      groupId: 'tracing-test',
      topics: ['things'],
      startFrom: 'earliest',
      handler: async (message: ReceivedMessage) => {
        const context = currentTelemetryContext();
        handled.set(message.envelope.id, { correlationId: context?.correlationId, traceId: context?.span?.spanContext().traceId });
      },
    });
    await subscription.ready;
  });

  afterAll(async () => {
    await broker?.disconnect();
    await dataSource?.destroy();
    await provider?.shutdown();
  });

  const consumerSpanOf = (messageId: string) =>
    spans.getFinishedSpans().find((span) => span.kind === SpanKind.CONSUMER && span.attributes['messaging.message.id'] === messageId);

  it('continues the producer span in the consumer span, and hands the handler the correlation id', async () => {
    const { envelope, producer } = await runInSpan('publish things', SpanKind.PRODUCER, {}, { correlationId: 'req_direct' }, {}, async () => {
      const made = createEnvelope({ type: 'ThingHappened', schemaVersion: 1, source: 'test', subject: 'thing:1', data: {}, correlationId: 'req_direct' });
      await broker.publish([{ topic: 'things', key: 'thing:1', envelope: made }]);
      return { envelope: made, producer: currentTelemetryContext()?.span?.spanContext() };
    });
    const consumer = await eventually(
      () => consumerSpanOf(envelope.id),
      (span) => span !== undefined,
      'the consumer span',
    );
    expect(producer?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(consumer.spanContext().traceId).toBe(producer?.traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer?.spanId);
    expect(consumer.name).toBe('things process');
    expect(handled.get(envelope.id)).toEqual({ correlationId: 'req_direct', traceId: producer?.traceId });
  });

  it('keeps the trace of the work that wrote an outbox row when the relay publishes it later, outside any span', async () => {
    const { envelope, producer } = await runInSpan('handle command', SpanKind.CONSUMER, {}, { correlationId: 'req_outbox' }, {}, () =>
      dataSource.transaction(async (manager) => {
        const made = createEnvelope({ type: 'ThingHappened', schemaVersion: 1, source: 'test', subject: 'thing:2', data: {}, correlationId: 'req_outbox' });
        await enqueueOutbox(manager, [{ topic: 'things', key: 'thing:2', envelope: made }]);
        return { envelope: made, producer: currentTelemetryContext()?.span?.spanContext() };
      }),
    );
    const relay = new OutboxRelay(broker, { connectionString: databaseUrl, batchSize: 10, pollIntervalMs: 1_000, log: () => undefined });
    expect(currentTelemetryContext()).toBeUndefined();
    try {
      await relay.relayBatch();
    } finally {
      await relay.stop();
    }
    const consumer = await eventually(
      () => consumerSpanOf(envelope.id),
      (span) => span !== undefined,
      'the consumer span',
    );
    expect(consumer.spanContext().traceId).toBe(producer?.traceId);
    expect(handled.get(envelope.id)?.correlationId).toBe('req_outbox');
  });
});
