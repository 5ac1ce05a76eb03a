#!/usr/bin/env node
/**
 * `node bench/takeover.mjs [--rounds 3] [--partitions 6]`: how long the partitions of a consumer
 * group replica wait for another replica after it dies (SIGKILL) or is stopped (SIGTERM: the
 * consumer finishes, commits and leaves the group), with the consumer settings of before issue
 * 18 (session 10 s, heartbeat 2 s) and of now (kafka-message-broker.ts). Prints, per setting and
 * signal, the takeover time of each round and their maximum.
 *
 * Two replicas (child processes running this file with --replica) consume one topic through the
 * messaging port (KafkaMessageBroker from dist/) while this process publishes to every partition
 * every 20 ms. Takeover time: from the signal to the survivor's first message from each
 * partition the victim owned, the largest over those partitions.
 *
 * Uses KAFKA_BROKERS when set (the figures then depend on whatever else runs there), else starts
 * a private broker like `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build, builtEntry } from '../tools/build-workspace.mjs';

const require = createRequire(import.meta.url);
const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    partitions: { type: 'string', default: '6' },
    replica: { type: 'boolean', default: false },
    namespace: { type: 'string' },
    'session-ms': { type: 'string' },
    'heartbeat-ms': { type: 'string' },
  },
});
const TOPIC = 'takeover.bench';
const GROUP = 'takeover-bench';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const brokerOptions = (namespace, extra = {}) => ({
  clientId: `takeover-${process.pid}`,
  brokers: process.env.KAFKA_BROKERS.split(','),
  namespace,
  log: () => undefined,
  ...extra,
});

if (options.replica) {
  await runReplica();
} else {
  await runBench();
}

/** A replica: prints a line per message (its partition), leaves the group cleanly on SIGTERM. */
async function runReplica() {
  const { KafkaMessageBroker } = require(builtEntry('libs/shared/messaging/src/index.ts'));
  const broker = new KafkaMessageBroker(
    brokerOptions(options.namespace, { sessionTimeoutMs: Number(options['session-ms']), heartbeatIntervalMs: Number(options['heartbeat-ms']) }),
  );
  await broker.connect();
  const subscription = await broker.subscribe({
    groupId: GROUP,
    topics: [TOPIC],
    startFrom: 'latest',
    handler: async (message) => {
      process.stdout.write(`message ${message.partition}\n`);
    },
  });
  await subscription.ready;
  process.stdout.write('ready\n');
  process.once('SIGTERM', async () => {
    await subscription.stop();
    await broker.disconnect();
    process.exit(0);
  });
}

function startReplica(namespace, setting) {
  const child = spawn(
    process.execPath,
    [
      fileURLToPath(import.meta.url),
      '--replica',
      '--namespace',
      namespace,
      '--session-ms',
      String(setting.sessionMs),
      '--heartbeat-ms',
      String(setting.heartbeatMs),
    ],
    {
      env: process.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const replica = { child, partitions: new Map(), ready: null, exited: new Promise((resolve) => child.on('exit', resolve)) };
  replica.ready = new Promise((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') resolve();
      const [kind, partition] = line.split(' ');
      if (kind === 'message') replica.partitions.set(Number(partition), Date.now());
    });
  });
  return replica;
}

/** One round: two replicas, a steady stream, one replica signalled; returns the takeover time in ms. */
async function measureRound(setting, signal, partitionCount) {
  const { createEnvelope, KafkaMessageBroker } = require(builtEntry('libs/shared/messaging/src/index.ts'));
  const namespace = `takeover${randomBytes(4).toString('hex')}`;
  const publisher = new KafkaMessageBroker(brokerOptions(namespace));
  await publisher.connect();
  await publisher.ensureTopics([{ topic: TOPIC, partitions: partitionCount }]);
  const replicas = [startReplica(namespace, setting), startReplica(namespace, setting)];
  await Promise.all(replicas.map((replica) => replica.ready));
  let publishing = true;
  // Keys until every partition has one, so each partition gets a message every tick.
  const keys = Array.from({ length: partitionCount * 8 }, (_, index) => `key-${index}`);
  const stream = (async () => {
    while (publishing) {
      await publisher.publish(
        keys.map((key) => ({
          topic: TOPIC,
          key,
          envelope: createEnvelope({ type: 'TakeoverProbe', schemaVersion: 1, source: 'takeover-bench', subject: key, correlationId: key, data: {} }),
        })),
      );
      await sleep(20);
    }
  })();
  try {
    // Settled: both replicas hold partitions (the second join's rebalance is over).
    const settleDeadline = Date.now() + 60_000;
    for (;;) {
      const since = Date.now();
      await sleep(1_500);
      const recent = replicas.map((replica) => [...replica.partitions].filter(([, at]) => at >= since).map(([partition]) => partition));
      if (recent.every((owned) => owned.length > 0) && recent[0].length + recent[1].length === partitionCount) break;
      if (Date.now() > settleDeadline) throw new Error('the two replicas never shared the partitions');
    }
    const [victim, survivor] = replicas;
    const since = Date.now() - 500;
    const victimPartitions = [...victim.partitions].filter(([, at]) => at >= since).map(([partition]) => partition);
    const signalledAt = Date.now();
    victim.child.kill(signal);
    const deadline = signalledAt + 60_000;
    while (!victimPartitions.every((partition) => (survivor.partitions.get(partition) ?? 0) > signalledAt)) {
      if (Date.now() > deadline) throw new Error('the survivor never took over');
      await sleep(10);
    }
    await victim.exited;
    return Math.max(...victimPartitions.map((partition) => survivor.partitions.get(partition) - signalledAt));
  } finally {
    publishing = false;
    await stream;
    for (const replica of replicas) replica.child.kill('SIGKILL');
    await Promise.all(replicas.map((replica) => replica.exited));
    await publisher.disconnect();
  }
}

async function runBench() {
  const rounds = Number(options.rounds);
  const partitionCount = Number(options.partitions);
  console.log('[takeover] building (Nx, cached)');
  await build({ projects: ['shared-messaging'], logFile: '.local/build.log' });
  let infra = null;
  if (!process.env.KAFKA_BROKERS) {
    const { startInfra } = await import('../deploy/local/infra.mjs');
    console.log('[takeover] starting a private Kafka broker');
    infra = await startInfra({ mode: 'test' });
    process.env.KAFKA_BROKERS = infra.kafka.brokers;
  }
  const { CONSUMER_SESSION_TIMEOUT_MS, CONSUMER_HEARTBEAT_INTERVAL_MS } = require(builtEntry('libs/shared/messaging/src/kafka/kafka-message-broker.ts'));
  const settings = [
    { name: 'before (session 10 s, heartbeat 2 s)', sessionMs: 10_000, heartbeatMs: 2_000 },
    {
      name: `now (session ${CONSUMER_SESSION_TIMEOUT_MS / 1000} s, heartbeat ${CONSUMER_HEARTBEAT_INTERVAL_MS} ms)`,
      sessionMs: CONSUMER_SESSION_TIMEOUT_MS,
      heartbeatMs: CONSUMER_HEARTBEAT_INTERVAL_MS,
    },
  ];
  const lines = ['| consumer settings | signal | takeover per round (ms) | max (ms) |', '|---|---|---|---|'];
  try {
    for (const setting of settings) {
      for (const signal of ['SIGKILL', 'SIGTERM']) {
        const figures = [];
        for (let round = 0; round < rounds; round += 1) figures.push(await measureRound(setting, signal, partitionCount));
        const line = `| ${setting.name} | ${signal} | ${figures.join(', ')} | ${Math.max(...figures)} |`;
        console.log(line);
        lines.push(line);
      }
    }
  } finally {
    if (infra) await infra.stop();
  }
  console.log(`\n${lines.join('\n')}`);
}
