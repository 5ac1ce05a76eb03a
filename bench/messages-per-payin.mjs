#!/usr/bin/env node
/**
 * `node bench/messages-per-payin.mjs [--payins 20]`: how many Kafka messages one pay-in puts on
 * the broker, and what each consumer group does with them (issue 21, "consume only what you
 * need"). Runs the real system (SystemUnderTest from dist/), then, for `--payins` pay-ins created
 * only (W1's request) and as many taken through the whole lifecycle (payer page, "I have paid",
 * the agent's confirmation), prints per pay-in:
 * - messages produced, by topic (end offsets before and after, reply topics together);
 * - per consumer group and topic, from the services' `messaging_consumed_messages_total`: messages
 *   taken, handled, passed over on the type header (never decoded) and passed over after decoding.
 * Before consumers declared their types every message taken was decoded and handed to its
 * handler, so "decoded before" is "taken", and "decoded now" is handled + skipped after decoding.
 *
 * Needs KAFKA_BROKERS and TEST_PG_ADMIN_URL (the shared test infrastructure or `npm start`'s).
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { build, builtEntry } from '../tools/build-workspace.mjs';
import { payInSteps } from './payin-steps.mjs';

const require = createRequire(import.meta.url);
const { values: options } = parseArgs({ options: { payins: { type: 'string', default: '20' } } });
const PAYINS = Number(options.payins);
if (!Number.isInteger(PAYINS) || PAYINS <= 0) throw new Error(`--payins must be a positive integer, got ${options.payins}`);
if (!process.env.KAFKA_BROKERS || !process.env.TEST_PG_ADMIN_URL) throw new Error('set KAFKA_BROKERS and TEST_PG_ADMIN_URL');

await build({ logFile: '.local/build.log' });
const { SystemUnderTest, createOperator, registerAgent } = require(builtEntry('libs/shared/testing/src/index.ts'));
const CONSUMING = ['gateway', 'payments', 'ledger', 'disputes', 'withdrawals', 'callbacks'];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const system = await SystemUnderTest.start();
const kafka = new Kafka({ clientId: 'messages-per-payin', brokers: process.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();
try {
  const merchant = await system.createClient('Messages per pay-in shop');
  const operator = await createOperator(system);
  const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  const { createPayIn, lifecycle } = payInSteps({ system, merchant, agent, orderIdPrefix: 'mpp', callbackUrl: 'https://shop.example/callbacks' });

  for (const [label, run] of [
    ['W1: create a pay-in', createPayIn],
    ['a pay-in through to success (create, payer page, "I have paid", confirm)', lifecycle],
  ]) {
    const before = await snapshot();
    for (let index = 0; index < PAYINS; index += 1) await run();
    const after = await settled();
    report(label, before, after);
  }
} finally {
  await admin.disconnect();
  await system.stop();
}

/** End offsets of this run's topics and every service's consumed-message counters. */
async function snapshot() {
  const prefix = `${system.runId}.`;
  const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix) && !topic.endsWith('.dlq'));
  const produced = {};
  for (const topic of topics) {
    const logical = topic.slice(prefix.length).replace(/^gateway\.replies\..*/, 'gateway.replies.*');
    const offsets = await admin.fetchTopicOffsets(topic);
    produced[logical] = (produced[logical] ?? 0) + offsets.reduce((sum, { high }) => sum + Number(high), 0);
  }
  const consumed = {};
  for (const service of CONSUMING) {
    const base = service === 'gateway' ? `http://127.0.0.1:${system.gatewayInternalPort}` : system.urlOf(service);
    const text = await (await fetch(`${base}/metrics`)).text();
    for (const [, labels, value] of text.matchAll(/^messaging_consumed_messages_total\{([^}]*)\} (\d+)$/gm)) {
      const label = (name) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1];
      const replies = (name) => name.replace(/^gateway\.replies\..*/, 'gateway.replies.*');
      const key = `${service} ${replies(label('group'))} ${replies(label('topic'))}`;
      consumed[key] ??= { handled: 0, skipped_undecoded: 0, skipped_decoded: 0 };
      consumed[key][label('outcome')] += Number(value);
    }
  }
  return { produced, consumed };
}

/** A snapshot once every consumer has taken what was produced (nothing changes for two seconds). */
async function settled() {
  let last = JSON.stringify(await snapshot());
  for (let quiet = 0; quiet < 4;) {
    await sleep(500);
    const now = JSON.stringify(await snapshot());
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
  return JSON.parse(last);
}

function report(label, before, after) {
  const perPayIn = (value) => (value / PAYINS).toFixed(2);
  console.log(`\n${label}, per pay-in (${PAYINS} pay-ins):\n`);
  console.log('| topic | messages produced |\n|---|---:|');
  let total = 0;
  for (const [topic, high] of Object.entries(after.produced).sort()) {
    const delta = high - (before.produced[topic] ?? 0);
    total += delta;
    if (delta > 0) console.log(`| ${topic} | ${perPayIn(delta)} |`);
  }
  console.log(`| all | ${perPayIn(total)} |`);
  console.log(
    '\n| service, group, topic | taken | handled | skipped undecoded | skipped after decoding | decoded before | decoded now |\n|---|---:|---:|---:|---:|---:|---:|',
  );
  const totals = { taken: 0, handled: 0, undecoded: 0, decoded: 0 };
  for (const [key, counts] of Object.entries(after.consumed).sort()) {
    const was = before.consumed[key] ?? { handled: 0, skipped_undecoded: 0, skipped_decoded: 0 };
    const handled = counts.handled - was.handled;
    const undecoded = counts.skipped_undecoded - was.skipped_undecoded;
    const decodedSkip = counts.skipped_decoded - was.skipped_decoded;
    const taken = handled + undecoded + decodedSkip;
    if (taken === 0) continue;
    totals.taken += taken;
    totals.handled += handled;
    totals.undecoded += undecoded;
    totals.decoded += handled + decodedSkip;
    console.log(
      `| ${key} | ${perPayIn(taken)} | ${perPayIn(handled)} | ${perPayIn(undecoded)} | ${perPayIn(decodedSkip)} | ${perPayIn(taken)} | ${perPayIn(handled + decodedSkip)} |`,
    );
  }
  console.log(
    `| all consumers | ${perPayIn(totals.taken)} | ${perPayIn(totals.handled)} | ${perPayIn(totals.undecoded)} | ${perPayIn(totals.decoded - totals.handled)} | ${perPayIn(totals.taken)} | ${perPayIn(totals.decoded)} |`,
  );
}
