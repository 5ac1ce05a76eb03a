/**
 * Goal: a consumer declared the Nest way (a controller method with `@ConsumeTopicInBatches`,
 * i.e. `@EventPattern`, connected through `app.connectMicroservice({ strategy })`) keeps the messaging
 * port's promises on a real Kafka broker: messages of one key arrive in the order they were
 * published, a poison message goes to the dead-letter topic at once (its error reaches the port
 * unchanged, not Nest's generic RPC error) and does not block the messages behind it.
 * Method: a private topic namespace, a three-partition topic, a Nest app with one controller,
 * and a plain kafkajs consumer reading the dead-letter topic.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload, type CustomStrategy } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Kafka, logLevel } from 'kafkajs';
import { createEnvelope, PoisonMessageError } from '../envelope';
import { KafkaMessageBroker } from '../kafka/kafka-message-broker';
import type { ReceivedMessage } from '../messaging-port';
import { eventually } from '@mp/shared-testing';
import { ConsumeTopicInBatches, MessagingContext, MessagingTransportStrategy } from './messaging-transport.strategy';

const runId = `t${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');
const TOPIC = 'transport.test';
const KEYS = ['alpha', 'bravo', 'charlie'];
const MESSAGES_PER_KEY = 15;

const received: Array<{ key: string; sequence: number; partition: number }> = [];

@Controller()
class ThingsConsumer {
  @ConsumeTopicInBatches(TOPIC)
  async handle(@Payload() messages: ReceivedMessage[], @Ctx() context: MessagingContext): Promise<void> {
    // A batch with a poison message in it comes back one message at a time: the poison one alone fails then.
    const poison = messages.find((message) => (message.envelope.data as { poison?: boolean }).poison);
    if (poison) throw new PoisonMessageError(`sequence ${(poison.envelope.data as { sequence: number }).sequence} is not a valid thing`);
    for (const message of messages) {
      // A little work per message, so a consumer that did not wait for it would reorder.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      received.push({ key: message.key ?? '', sequence: (message.envelope.data as { sequence: number }).sequence, partition: context.message.partition });
    }
  }
}

@Module({ controllers: [ThingsConsumer] })
class ThingsModule {}

describe('consumers declared with @EventPattern over the messaging port (real Kafka)', () => {
  let broker: KafkaMessageBroker;
  let app: NestFastifyApplication;
  const deadLetters: Array<{ key: string; headers: Record<string, string> }> = [];
  let dlqConsumer: ReturnType<Kafka['consumer']>;

  beforeAll(async () => {
    broker = new KafkaMessageBroker({ clientId: 'transport-test', brokers, namespace: runId, log: () => undefined });
    await broker.connect();
    await broker.ensureTopics([{ topic: TOPIC, partitions: 3 }]);
    app = await NestFactory.create<NestFastifyApplication>(ThingsModule, new FastifyAdapter(), { logger: ['error'] });
    app.connectMicroservice<CustomStrategy>({
      strategy: new MessagingTransportStrategy(broker, {
        groupId: 'things',
        startFrom: 'earliest',
        errorPolicy: { attemptsMax: 3, retryDelayInitialMs: 20, retryDelayMaxMs: 100 },
      }),
    });
    await app.init();
    await app.startAllMicroservices();

    dlqConsumer = new Kafka({ clientId: 'dlq-reader', brokers, logLevel: logLevel.NOTHING }).consumer({ groupId: `${runId}.dlq-reader` });
    await dlqConsumer.connect();
    await dlqConsumer.subscribe({ topics: [`${runId}.${TOPIC}.dlq`], fromBeginning: true });
    await dlqConsumer.run({
      eachMessage: async ({ message }) => {
        const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]));
        deadLetters.push({ key: message.key?.toString('utf8') ?? '', headers });
      },
    });
  });

  afterAll(async () => {
    await dlqConsumer?.disconnect();
    await app?.close();
    await broker?.disconnect();
  });

  it('delivers each key in publish order and dead-letters a poison message at once without blocking its partition', async () => {
    // Interleaved across keys, one publish call per round, so the keys share batches.
    const poisonSequence = 4;
    for (let sequence = 0; sequence < MESSAGES_PER_KEY; sequence += 1) {
      await broker.publish(
        KEYS.map((key) => ({
          topic: TOPIC,
          key,
          envelope: createEnvelope({
            type: 'ThingHappened',
            schemaVersion: 1,
            source: 'test',
            subject: key,
            data: { sequence, poison: key === 'alpha' && sequence === poisonSequence },
            correlationId: 'req_test',
          }),
        })),
      );
    }

    const expectedCount = KEYS.length * MESSAGES_PER_KEY - 1;
    await eventually(() => received.length >= expectedCount && deadLetters.length >= 1);

    for (const key of KEYS) {
      const sequences = received.filter((message) => message.key === key).map((message) => message.sequence);
      const expected = [...Array(MESSAGES_PER_KEY).keys()].filter((sequence) => !(key === 'alpha' && sequence === poisonSequence));
      expect(sequences).toEqual(expected);
      // One key, one partition: that is what keeps its order.
      expect(new Set(received.filter((message) => message.key === key).map((message) => message.partition)).size).toBe(1);
    }
    expect(received).toHaveLength(expectedCount);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0].key).toBe('alpha');
    // One attempt: the PoisonMessageError reached the port's policy as itself.
    expect(deadLetters[0].headers['dlq-attempts']).toBe('1');
    expect(deadLetters[0].headers['dlq-error']).toContain(`sequence ${poisonSequence} is not a valid thing`);
  });
});
