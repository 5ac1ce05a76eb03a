#!/usr/bin/env node
/**
 * `node bench/kafka-client-cost.mjs [--messages 20000] [--rounds 3] [--security plaintext,sasl-ssl]`:
 * the CPU one Kafka message costs in kafkajs and in @platformatic/kafka, on the produce and
 * consume paths the services use. A benchmark that prints figures, not a timed test.
 *
 * Each client produces `--messages` copies of a real envelope (a PaymentOrderCreated of about
 * 950 bytes, with the headers the adapter sets, a fresh id and order key each, so the keys spread
 * over the topic's six partitions) in sends of 100, one after the other, as the outbox relay
 * publishes; then a second, smaller run of lone sends (one message a call, as a gateway request
 * publishes its command at low load). Then a consumer group reads the topic with the consumer
 * settings of the messaging adapter (libs/shared/messaging/src/kafka/kafka-message-broker.ts:
 * 6 s session, 500 ms heartbeat and fetch wait, 128 KB a partition and 1 MB a fetch, offsets
 * committed every second; kafkajs through eachBatch in chunks of 50 with a heartbeat after each),
 * reading each message's type header and value as text, as the adapter does before decoding.
 *
 * Every phase runs in a fresh child process, so one client's idle timers never count against the
 * other; its process CPU (process.cpuUsage, user + system) and wall time are taken around the
 * measured messages only, after a warm-up of 1,000 messages that is not counted (connecting and
 * joining the group are outside too). Clients alternate within a round, and the first of a round
 * alternates between rounds. Prints per security mode, client and phase the median over the
 * rounds of µs of CPU per message and messages per second.
 *
 * Brokers: a private PLAINTEXT one (deploy/local/infra.mjs, test mode) unless KAFKA_BROKERS is set,
 * and a private SASL_SSL one (SCRAM-SHA-512 over TLS, the configuration compose and Kubernetes
 * run) as its admin principal, which no ACL restricts.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** A PaymentOrderCreated as payments publishes it (taken from a running system), 950 bytes. */
const ENVELOPE = {
  id: '0eba0f1a-485d-47df-8246-6d5927842db5',
  type: 'PaymentOrderCreated',
  schemaVersion: 1,
  source: 'payments',
  subject: 'merchant:mch_16128f233e8904a5c908653b/order:mem-mx1x1qi7-2',
  time: '2026-11-29T14:10:01.870Z',
  correlationId: 'req_9f6822f48af50cd84c9b4763',
  causationId: 'a283a4c5-8c63-4a9a-8021-6221a5525946',
  data: {
    merchantId: 'mch_16128f233e8904a5c908653b',
    orderId: 'mem-mx1x1qi7-2',
    direction: 'incoming',
    status: 'PENDING',
    amountMinor: '100000',
    feeMinor: '2500',
    currency: 'RUB',
    agentId: null,
    version: 1,
    occurredAt: '2026-11-29T14:10:01.854Z',
    order: {
      order_id: 'mem-mx1x1qi7-2',
      direction: 'incoming',
      status: 'PENDING',
      sub_status: 'awaiting_agent',
      amount: '1000.00',
      fee: '25.00',
      currency: 'RUB',
      country: 'RU',
      method: 'bank_card',
      callback_url: 'https://shop.example/callbacks',
      failure_reason: null,
      expires_at: '2026-11-29T14:40:01.854Z',
      created_at: '2026-11-29T14:10:01.854Z',
      updated_at: '2026-11-29T14:10:01.854Z',
    },
  },
};
const PARTITIONS = 6;
/** The outbox relay's batch (apps/payments/src/app.module.ts, outbox.batchSize). */
const RELAY_BATCH = 100;
/** The adapter's BATCH_HANDLER_MESSAGES_MAX: a heartbeat after every chunk of this many. */
const CHUNK = 50;
const WARM_UP = 1_000;
const CLIENTS = ['kafkajs', 'platformatic'];

const { values: options } = parseArgs({
  options: {
    messages: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    security: { type: 'string', default: 'plaintext,sasl-ssl' },
    worker: { type: 'string' },
  },
});
if (options.worker) await worker(JSON.parse(options.worker));
else await main();

async function main() {
  const messages = Number(options.messages);
  const rounds = Number(options.rounds);
  if (!Number.isInteger(messages) || messages <= 0) throw new Error(`--messages must be a positive integer, got ${options.messages}`);
  if (!Number.isInteger(rounds) || rounds <= 0) throw new Error(`--rounds must be a positive integer, got ${options.rounds}`);
  const modes = options.security.split(',').map((mode) => mode.trim());
  for (const mode of modes) if (mode !== 'plaintext' && mode !== 'sasl-ssl') throw new Error(`--security takes plaintext and sasl-ssl, got ${mode}`);
  const { startKafka } = await import('../deploy/local/infra.mjs');
  const { KAFKA_VERSION } = await import('../deploy/local/infra/constants.mjs');
  console.log(
    `# Kafka client cost: kafkajs ${version('kafkajs')} and @platformatic/kafka ${version('@platformatic/kafka')} on Kafka ${KAFKA_VERSION}, Node ${process.versions.node}`,
  );
  console.log(
    `${messages} messages of ${Buffer.byteLength(JSON.stringify(ENVELOPE))} bytes a phase (lone sends: a tenth), ${rounds} rounds, ${PARTITIONS} partitions\n`,
  );
  for (const mode of modes) {
    let broker = null;
    let connection;
    if (mode === 'plaintext' && process.env.KAFKA_BROKERS) connection = { brokers: process.env.KAFKA_BROKERS.split(','), security: null };
    else {
      broker = await startKafka({
        mode: 'test',
        log: () => undefined,
        ...(mode === 'sasl-ssl' ? { kafkaSecurity: { adminPassword: randomBytes(18).toString('hex'), users: {} } } : {}),
      });
      const security = broker.security
        ? { username: broker.security.adminUser, password: broker.security.adminPassword, ca: readFileSync(broker.security.caFile, 'utf8') }
        : null;
      connection = { brokers: [broker.brokers], security };
    }
    try {
      report(mode, messages, await measure(connection, messages, rounds));
    } finally {
      await broker?.stop();
    }
  }
}

/** Every round: each client's relay-style produce, lone sends and consume, clients alternating. */
async function measure(connection, messages, rounds) {
  const results = [];
  const runId = `cost${Date.now().toString(36)}`;
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? CLIENTS : [...CLIENTS].reverse();
    const topics = Object.fromEntries(order.map((client) => [client, { batched: `${runId}.${client}.${round}`, lone: `${runId}.${client}.${round}.lone` }]));
    await runWorker({ phase: 'topics', connection, topics: Object.values(topics).flatMap(({ batched, lone }) => [batched, lone]) });
    for (const [phase, topicOf, count, batch] of [
      ['produce', (client) => topics[client].batched, messages, RELAY_BATCH],
      ['produce-lone', (client) => topics[client].lone, Math.max(1, Math.round(messages / 10)), 1],
      ['consume', (client) => topics[client].batched, messages, 0],
    ]) {
      for (const client of order) {
        const result = await runWorker({ phase, client, connection, topic: topicOf(client), messages: count, batch, group: `${topicOf(client)}.group` });
        results.push({ round, phase, client, ...result });
        console.log(
          `[round ${round + 1}] ${client} ${phase}: ${result.cpuUsPerMessage.toFixed(1)} µs CPU/message, ${Math.round(result.messagesPerSecond)} messages/s`,
        );
      }
    }
  }
  return results;
}

function report(mode, messages, results) {
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };
  console.log(`\n## ${mode === 'plaintext' ? 'PLAINTEXT' : 'SASL_SSL (SCRAM-SHA-512 over TLS)'}: median of the rounds\n`);
  console.log('| phase | kafkajs µs CPU/msg | platformatic µs CPU/msg | platformatic / kafkajs | kafkajs msg/s | platformatic msg/s |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const phase of ['produce', 'produce-lone', 'consume']) {
    const of = (client, field) => median(results.filter((result) => result.phase === phase && result.client === client).map((result) => result[field]));
    const [oldCpu, newCpu] = CLIENTS.map((client) => of(client, 'cpuUsPerMessage'));
    const label = { produce: `produce, sends of ${RELAY_BATCH}`, 'produce-lone': 'produce, lone sends', consume: 'consume' }[phase];
    console.log(
      `| ${label} | ${oldCpu.toFixed(1)} | ${newCpu.toFixed(1)} | ${(newCpu / oldCpu).toFixed(2)} | ${Math.round(of('kafkajs', 'messagesPerSecond'))} | ${Math.round(of('platformatic', 'messagesPerSecond'))} |`,
    );
  }
  console.log('');
}

function runWorker(job) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-warnings', fileURLToPath(import.meta.url), '--worker', JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(output || 'null')) : reject(new Error(`${job.client ?? ''} ${job.phase} worker exited with ${code}`)),
    );
  });
}

function version(name) {
  return JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
}

////////// The worker: one phase of one client, in its own process; prints its figures as JSON.

async function worker(job) {
  if (job.phase === 'topics') return createTopics(job);
  const client = job.client === 'kafkajs' ? await kafkajsClient(job) : await platformaticClient(job);
  let figures;
  try {
    figures = job.phase === 'consume' ? await client.consume(job.messages) : await produce(client, job);
  } finally {
    await client.close();
  }
  process.stdout.write(JSON.stringify(figures));
}

/** Messages as the adapter's sendNow makes them: the envelope as JSON text, a key, four headers. */
function outgoing(count) {
  return Array.from({ length: count }, () => {
    const id = randomUUID();
    const orderId = `bench-${id.slice(0, 8)}`;
    const envelope = {
      ...ENVELOPE,
      id,
      subject: `merchant:${ENVELOPE.data.merchantId}/order:${orderId}`,
      data: { ...ENVELOPE.data, orderId, order: { ...ENVELOPE.data.order, order_id: orderId } },
    };
    return {
      key: `${envelope.data.merchantId}:${orderId}`,
      value: JSON.stringify(envelope),
      headers: {
        'message-id': id,
        'message-type': envelope.type,
        'message-schema-version': String(envelope.schemaVersion),
        'correlation-id': envelope.correlationId,
      },
    };
  });
}

/** Process CPU and wall time around `work`, per message. */
async function measured(count, work) {
  const cpu = process.cpuUsage();
  const startedAt = process.hrtime.bigint();
  await work();
  const wallS = Number(process.hrtime.bigint() - startedAt) / 1e9;
  const { user, system } = process.cpuUsage(cpu);
  return { messages: count, cpuUsPerMessage: (user + system) / count, messagesPerSecond: count / wallS };
}

async function produce(client, job) {
  const sendAll = async (messages) => {
    for (let start = 0; start < messages.length; start += job.batch) await client.send(job.topic, messages.slice(start, start + job.batch));
  };
  await sendAll(outgoing(WARM_UP));
  const messages = outgoing(job.messages);
  return measured(messages.length, () => sendAll(messages));
}

/** Counts the messages a consumer is given; the measurement starts once the warm-up's are in. */
function consumedCounter(total, onStart) {
  let seen = 0;
  const { promise: done, resolve } = Promise.withResolvers();
  return {
    done,
    take(type, value) {
      if (type !== ENVELOPE.type || value.length === 0) throw new Error(`unexpected message ${type}`);
      seen += 1;
      if (seen === WARM_UP) onStart();
      if (seen === WARM_UP + total) resolve();
    },
  };
}

async function kafkajsClient(job) {
  const { Kafka, logLevel, Partitioners } = await import('kafkajs');
  const { security } = job.connection;
  const kafka = new Kafka({
    clientId: `cost-${job.phase}`,
    brokers: job.connection.brokers,
    ...(security ? { ssl: { ca: [security.ca] }, sasl: { mechanism: 'scram-sha-512', username: security.username, password: security.password } } : {}),
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 100, retries: 8, maxRetryTime: 5_000 },
    // The adapter logs errors; here the only ones are a fresh broker's settling answers, retried.
    logLevel: logLevel.NOTHING,
  });
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
    idempotent: false,
    maxInFlightRequests: 5,
  });
  if (job.phase !== 'consume') await producer.connect();
  let consumer = null;
  return {
    send: (topic, messages) => producer.sendBatch({ acks: -1, timeout: 10_000, topicMessages: [{ topic, messages }] }),
    async consume(total) {
      consumer = kafka.consumer({
        groupId: job.group,
        sessionTimeout: 6_000,
        heartbeatInterval: 500,
        rebalanceTimeout: 30_000,
        maxWaitTimeInMs: 500,
        maxBytesPerPartition: 128 * 1024,
        maxBytes: 1024 * 1024,
        allowAutoTopicCreation: false,
        retry: { initialRetryTime: 200, retries: 10, maxRetryTime: 5_000 },
      });
      await consumer.connect();
      await consumer.subscribe({ topics: [job.topic], fromBeginning: true });
      let figures;
      const { promise: started, resolve: start } = Promise.withResolvers();
      const counter = consumedCounter(total, start);
      const finished = started.then(() => measured(total, () => counter.done)).then((result) => (figures = result));
      await consumer.run({
        autoCommit: true,
        autoCommitInterval: 1_000,
        partitionsConsumedConcurrently: 1,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          for (let at = 0; at < batch.messages.length; at += CHUNK) {
            if (!isRunning() || isStale()) return;
            for (const message of batch.messages.slice(at, at + CHUNK)) {
              counter.take(message.headers['message-type']?.toString(), message.value.toString());
              resolveOffset(message.offset);
            }
            await heartbeat();
          }
        },
      });
      await finished;
      return figures;
    },
    async close() {
      await consumer?.disconnect();
      await producer.disconnect();
    },
  };
}

async function platformaticClient(job) {
  const { Consumer, Producer, ProduceAcks, stringDeserializers, stringSerializers } = await import('@platformatic/kafka');
  const { security } = job.connection;
  const base = {
    clientId: `cost-${job.phase}`,
    bootstrapBrokers: job.connection.brokers,
    ...(security ? { tls: { ca: [security.ca] }, sasl: { mechanism: 'SCRAM-SHA-512', username: security.username, password: security.password } } : {}),
    connectTimeout: 3_000,
    timeout: 10_000,
    retries: 8,
    retryDelay: 100,
  };
  const producer =
    job.phase === 'consume'
      ? null
      : new Producer({ ...base, serializers: stringSerializers, acks: ProduceAcks.ALL, idempotent: false, autocreateTopics: false });
  let consumer = null;
  return {
    send: (topic, messages) => producer.send({ messages: messages.map((message) => ({ topic, ...message })) }),
    async consume(total) {
      consumer = new Consumer({
        ...base,
        groupId: job.group,
        deserializers: stringDeserializers,
        sessionTimeout: 6_000,
        heartbeatInterval: 500,
        rebalanceTimeout: 30_000,
        maxWaitTime: 500,
        maxBytesPerPartition: 128 * 1024,
        maxBytes: 1024 * 1024,
      });
      const { promise: started, resolve: start } = Promise.withResolvers();
      const counter = consumedCounter(total, start);
      const finished = started.then(() => measured(total, () => counter.done));
      const stream = await consumer.consume({ topics: [job.topic], mode: 'committed', fallbackMode: 'earliest', autocommit: 1_000 });
      stream.on('data', (message) => counter.take(message.headers.get('message-type'), message.value));
      const figures = await finished;
      await stream.close();
      return figures;
    },
    async close() {
      await consumer?.close(true);
      await producer?.close();
    },
  };
}

/** The phase's topics, six partitions each, made with kafkajs's admin client (outside any measurement). */
async function createTopics(job) {
  const { Kafka, logLevel } = await import('kafkajs');
  const { security } = job.connection;
  const kafka = new Kafka({
    clientId: 'cost-admin',
    brokers: job.connection.brokers,
    ...(security ? { ssl: { ca: [security.ca] }, sasl: { mechanism: 'scram-sha-512', username: security.username, password: security.password } } : {}),
    logLevel: logLevel.ERROR,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ waitForLeaders: true, topics: job.topics.map((topic) => ({ topic, numPartitions: PARTITIONS, replicationFactor: 1 })) });
  } finally {
    await admin.disconnect();
  }
  process.stdout.write('null');
}
