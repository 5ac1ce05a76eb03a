/**
 * Goal: a consumer that declares the types it acts on (`@ConsumeTopicInBatches(topic, { types })`) never pays for the others: a message whose type
 * header names another type is passed over before its value is decoded (a body that is not even
 * JSON is not dead-lettered), one without the header (published before it existed) is decoded
 * and passed over on its envelope's type, and a declared type is handled as before (a poison one
 * still goes to the dead-letter topic). Published messages carry their type and schema version as
 * headers. Method: a private namespace on the real broker, a Nest app with one batch consumer, raw messages written with kafkajs next to the port's own publishes, and a
 * plain kafkajs consumer reading the dead-letter topics.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload, type CustomStrategy } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Kafka, logLevel, type Message, type Producer } from 'kafkajs';
import { createEnvelope, PoisonMessageError } from '../envelope';
import { KafkaMessageBroker } from '../kafka/kafka-message-broker';
import type { ReceivedMessage } from '../messaging-port';
import { eventually } from '@mp/shared-testing';
import { ConsumeTopicInBatches, MessagingTransportStrategy } from './messaging-transport.strategy';

const runId = `t${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');
const BATCH_TOPIC = 'typefilter.batch';
const HANDLED = 'ThingHappened';
const UNRELATED = 'SomethingElseHappened';
const GROUP = 'typefilter';

const handled: Array<{ topic: string; sequence: number }> = [];
const batchSizes: number[] = [];

function handleThing(message: ReceivedMessage): void {
  if (message.envelope.type !== HANDLED) throw new Error(`a ${message.envelope.type} reached a handler that declared only ${HANDLED}`);
  const data = message.envelope.data as { sequence: number; poison?: boolean };
  if (data.poison) throw new PoisonMessageError(`sequence ${data.sequence} is poison`);
  handled.push({ topic: message.topic, sequence: data.sequence });
}

@Controller()
class ThingsConsumer {
  @ConsumeTopicInBatches(BATCH_TOPIC, { types: [HANDLED] })
  async batch(@Payload() messages: ReceivedMessage[]): Promise<void> {
    batchSizes.push(messages.length);
    messages.forEach(handleThing);
  }
}

@Module({ controllers: [ThingsConsumer] })
class ThingsModule {}

const envelopeOf = (type: string, sequence: number, poison = false) =>
  createEnvelope({ type, schemaVersion: 3, source: 'test', subject: 'thing', data: { sequence, poison }, correlationId: 'req_typefilter' });

describe('consumers that declare their types pass over the others without decoding them (real Kafka)', () => {
  let broker: KafkaMessageBroker;
  let app: NestFastifyApplication;
  let rawProducer: Producer;
  const deadLetters: Array<{ topic: string; headers: Record<string, string> }> = [];
  let dlqConsumer: ReturnType<Kafka['consumer']>;

  /** Messages written as they are, in one produce request, on one key (one partition, in order). */
  const publishRaw = (topic: string, messages: Message[]) =>
    rawProducer.send({ topic: `${runId}.${topic}`, acks: -1, messages: messages.map((message) => ({ key: 'thing', ...message })) });

  beforeAll(async () => {
    broker = new KafkaMessageBroker({ clientId: 'typefilter-test', brokers, namespace: runId, log: () => undefined });
    await broker.connect();
    await broker.ensureTopics([{ topic: BATCH_TOPIC, partitions: 1 }]);
    app = await NestFactory.create<NestFastifyApplication>(ThingsModule, new FastifyAdapter(), { logger: ['error'] });
    app.connectMicroservice<CustomStrategy>({
      strategy: new MessagingTransportStrategy(broker, {
        groupId: GROUP,
        startFrom: 'earliest',
        errorPolicy: { attemptsMax: 2, retryDelayInitialMs: 20, retryDelayMaxMs: 50 },
      }),
    });
    await app.init();
    await app.startAllMicroservices();

    const kafka = new Kafka({ clientId: 'typefilter-raw', brokers, logLevel: logLevel.NOTHING });
    rawProducer = kafka.producer();
    await rawProducer.connect();
    dlqConsumer = kafka.consumer({ groupId: `${runId}.dlq-reader` });
    await dlqConsumer.connect();
    await dlqConsumer.subscribe({ topics: [`${runId}.${BATCH_TOPIC}.dlq`], fromBeginning: true });
    await dlqConsumer.run({
      eachMessage: async ({ topic, message }) => {
        deadLetters.push({ topic, headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)])) });
      },
    });
  });

  afterAll(async () => {
    await dlqConsumer?.disconnect();
    await rawProducer?.disconnect();
    await app?.close();
    await broker?.disconnect();
  });

  it.each([BATCH_TOPIC])(
    'on %s: passes over an undeclared type on its header alone, or on its envelope without the header; handles a declared one',
    async (topic) => {
      await publishRaw(topic, [
        // Not JSON at all: decoding it would dead-letter it.
        { value: 'not json {', headers: { 'message-type': UNRELATED } },
        // Published before the header existed: decoded, and passed over on its type.
        { value: JSON.stringify(envelopeOf(UNRELATED, 1)) },
        // A declared type is decoded: a broken one is poison as ever.
        { value: 'not json either {', headers: { 'message-type': HANDLED } },
      ]);
      // Through the port: a declared type that is poison, and one that is fine, behind it.
      await broker.publish([envelopeOf(HANDLED, 2, true), envelopeOf(HANDLED, 3)].map((envelope) => ({ topic, key: 'thing', envelope })));

      const physicalDlq = `${runId}.${topic}.dlq`;
      await eventually(
        () =>
          handled.some((message) => message.topic === topic && message.sequence === 3) &&
          deadLetters.filter((letter) => letter.topic === physicalDlq).length >= 2,
      );
      expect(handled.filter((message) => message.topic === topic)).toEqual([{ topic, sequence: 3 }]);
      const letters = deadLetters.filter((letter) => letter.topic === physicalDlq);
      expect(letters.map((letter) => letter.headers['message-type'])).toEqual([HANDLED, HANDLED]);
      expect(letters[0].headers['dlq-error']).toContain('not JSON');
      // The port's own publish puts the envelope's type and schema version in headers.
      expect(letters[1].headers['message-schema-version']).toBe('3');
      expect(letters[1].headers['dlq-error']).toContain('sequence 2 is poison');
      const counts = broker.stats().consumed.find((entry) => entry.groupId === GROUP && entry.topic === topic);
      expect(counts).toEqual({ groupId: GROUP, topic, handled: 1, skippedUndecoded: 1, skippedDecoded: 1 });
    },
  );

  it('gives a batch handler only the declared types of a fetched batch', async () => {
    batchSizes.length = 0;
    await publishRaw(BATCH_TOPIC, [
      { value: JSON.stringify(envelopeOf(HANDLED, 10)), headers: { 'message-type': HANDLED } },
      { value: 'not json {', headers: { 'message-type': UNRELATED } },
      { value: JSON.stringify(envelopeOf(UNRELATED, 11)) },
      { value: JSON.stringify(envelopeOf(HANDLED, 12)), headers: { 'message-type': HANDLED } },
    ]);
    await eventually(() => handled.some((message) => message.sequence === 12));
    expect(handled.filter((message) => message.sequence >= 10).map((message) => message.sequence)).toEqual([10, 12]);
    // Fetched together, the two declared messages went to the batch handler as one batch.
    expect(batchSizes).toEqual([2]);
    const counts = broker.stats().consumed.find((entry) => entry.groupId === GROUP && entry.topic === BATCH_TOPIC);
    expect(counts).toMatchObject({ handled: 3, skippedUndecoded: 2, skippedDecoded: 2 });
  });
});
