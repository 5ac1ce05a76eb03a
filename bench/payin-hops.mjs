#!/usr/bin/env node
/**
 * `npm run bench:hops -- [--rate 80] [--seconds 20] [--partitions-concurrently N] [--chains N]`: where one pay-in's latency goes, hop by
 * hop, under an open-loop W1 load at `--rate` pay-ins a second (pick half of W1's saturation from
 * the latest `npm run bench`). Starts its own Kafka broker and PostgreSQL server (or uses
 * KAFKA_BROKERS and TEST_PG_ADMIN_URL when both are set), runs the real system from dist/ with
 * tracing on (OTEL_TRACES_EXPORTER=otlp) pointed at a small OTLP/HTTP JSON receiver in this
 * process, and joins each create's spans by trace id:
 *
 *   gateway   POST /v2/payments/incoming      (the merchant's request, server span)
 *   payments  <commands topic> process        (the command's consumer span, per batch)
 *   gateway   <replies topic> process         (the reply's consumer span, when it has one)
 *
 * Only traces that have the payments span are broken down: a batch's span continues the first
 * message's trace, so the other messages of a batch have none (how many is printed). The hops:
 * request → command handled (gateway work before the send, the produce, the broker, the fetch
 * wait and any queue in front of payments), payments' batch, then payments' end → the answer
 * (commit, the reply's produce and fetch, the gateway's answer). A benchmark that prints
 * figures, never a test: the figures move with the machine.
 *
 * `--chains N` adds N agent confirmations a second beside that load, as the benchmark's end-to-end
 * chains (one fresh merchant each, the pay-in created and its payer's steps taken beforehand),
 * breaks their requests down through the same hops by their traces (the gateway's server span
 * of the back-office confirm), and breaks each one down from the services' own records, all on this machine's clock: the
 * confirmation's answer, PaymentOrderSucceeded stored by payments (event_store.recorded_at, its
 * transaction's start), the ledger's credit (its PAYIN_SETTLED posting's recorded_at), the dispatcher's
 * delivery recorded (callback_deliveries.created_at) and its first attempt claimed
 * (callback_attempts.started_at), and the callback's arrival at the sink.
 */
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { build, builtEntry } from '../tools/build-workspace.mjs';
import { payInSteps } from './payin-steps.mjs';

const require = createRequire(import.meta.url);
const { values: options } = parseArgs({
  options: {
    rate: { type: 'string', default: '80' },
    seconds: { type: 'string', default: '20' },
    'partitions-concurrently': { type: 'string' },
    chains: { type: 'string', default: '0' },
  },
});
const RATE = Number(options.rate);
const SECONDS = Number(options.seconds);
const CHAINS = Number(options.chains);
if (!(RATE > 0) || !(SECONDS > 0)) throw new Error(`--rate and --seconds must be positive numbers, got ${options.rate} and ${options.seconds}`);
if (!(CHAINS >= 0)) throw new Error(`--chains must be a number of confirmations a second, 0 or more, got ${options.chains}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

await build({ logFile: '.local/build.log' });
let infra = null;
if (!process.env.KAFKA_BROKERS || !process.env.TEST_PG_ADMIN_URL) {
  const { startInfra } = await import('../deploy/local/infra.mjs');
  infra = await startInfra({ mode: 'test' });
  Object.assign(process.env, { KAFKA_BROKERS: infra.kafka.brokers, TEST_PG_ADMIN_URL: infra.postgres.adminUrl });
}
const { SystemUnderTest, createOperator, registerAgent } = require(builtEntry('libs/shared/testing/src/index.ts'));
const { benchedSystemEnvironment } = require(builtEntry('bench/src/system-environment.ts'));

/** Every span the services exported, as { service, name, traceId, start, end } in milliseconds. */
const spans = [];
const receiver = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    try {
      collectSpans(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } catch {
      response.writeHead(400).end();
    }
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const tracesEndpoint = `http://127.0.0.1:${receiver.address().port}/v1/traces`;
/** By order id: when its payment.succeeded callback arrived (Date.now()). */
const callbackArrivals = new Map();
const callbackSink = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const arrivedAt = Date.now();
    try {
      const callback = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (callback.type === 'payment.succeeded' && !callbackArrivals.has(callback.data?.order_id)) callbackArrivals.set(callback.data?.order_id, arrivedAt);
    } catch {
      // Not a callback of ours: only its arrival is answered.
    }
    response.writeHead(200).end();
  });
});
await new Promise((resolve) => callbackSink.listen(0, '127.0.0.1', resolve));
const callbackUrl = `http://127.0.0.1:${callbackSink.address().port}/callbacks`;

// KAFKA_PARTITIONS_CONSUMED_CONCURRENTLY for every service (the services' own default when not given): a run per value,
// side by side, shows what it does to each hop.
const concurrency = options['partitions-concurrently'] === undefined ? {} : { KAFKA_PARTITIONS_CONSUMED_CONCURRENTLY: options['partitions-concurrently'] };
const tracing = {
  ...concurrency,
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: tracesEndpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '500',
  OTEL_BSP_MAX_QUEUE_SIZE: '100000',
};
let system;
try {
  // The services as deployed (docker-compose.yml's heap limits and JSON logs, as in the benchmark), with tracing on.
  const deployed = benchedSystemEnvironment();
  const traced = new Set(['gateway', 'payments', 'ledger']);
  const env = Object.fromEntries(
    Object.entries(deployed).map(([service, variables]) => [service, traced.has(service) ? { ...variables, ...tracing } : variables]),
  );
  system = await SystemUnderTest.start({ env });
  const merchant = await system.createClient('Hops shop');
  const operator = await createOperator(system);
  const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  const { createPayIn } = payInSteps({ system, merchant, agent, orderIdPrefix: 'hop', callbackUrl });
  for (let index = 0; index < 20; index += 1) await createPayIn();
  const chains = await prepareChains(system, agent, Math.round(CHAINS * SECONDS));
  await sleep(2_000);
  spans.length = 0;

  // Open loops: each create (and each confirmation) fired at its scheduled time whether or not earlier ones answered.
  const total = Math.floor(RATE * SECONDS);
  const startedAt = performance.now();
  let failed = 0;
  const confirmations = inOpenLoop(chains.length, CHAINS, startedAt, (index, due) => confirm(chains[index], agent, due));
  await inOpenLoop(total, RATE, startedAt, () => createPayIn().catch(() => (failed += 1)));
  const achieved = total / ((performance.now() - startedAt) / 1_000);
  await confirmations;
  await sleep(3_000);
  const chainRecords = chains.length > 0 ? await readChainRecords(system, chains) : [];
  await system.stop();
  system = null;
  report(total, failed, achieved);
  if (chains.length > 0) reportChains(chainRecords);
} finally {
  await system?.stop();
  receiver.close();
  callbackSink.close();
  await infra?.stop();
}

/** Each chain's pay-in created for a merchant of its own, its payer's two steps taken: ready for the agent's confirmation. */
async function prepareChains(system, agent, count) {
  const chains = [];
  for (let index = 0; index < count; index += 1) {
    const merchant = await system.createClient(`Hops chain ${index}`);
    const { createPayIn, payerSteps } = payInSteps({ system, merchant, agent, orderIdPrefix: 'chain', callbackUrl });
    const created = await createPayIn();
    await payerSteps(created);
    chains.push({ merchant, orderId: created.orderId });
  }
  return chains;
}

/** `count` calls of `send(index, due)` at `rate` a second from `startedAt` (performance.now()); resolves when every one has. */
async function inOpenLoop(count, rate, startedAt, send) {
  const inFlight = [];
  for (let index = 0; index < count; index += 1) {
    const due = startedAt + (index * 1_000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    inFlight.push(send(index, due));
  }
  await Promise.all(inFlight);
}

/** The agent's confirmation of one chain, timed from its scheduled send `due` (wall clock). */
async function confirm(chain, agent, due) {
  chain.intendedAt = Date.now() + (due - performance.now());
  const answer = await agent.client.request('POST', `/backoffice/v1/agent/orders/${chain.merchant.credentials.merchantId}/${chain.orderId}/confirm`, {});
  chain.answeredAt = answer.status === 200 ? Date.now() : null;
}

/** What each service recorded of each chain, by order id, in epoch milliseconds. */
async function readChainRecords(system, chains) {
  const ids = chains.map((chain) => chain.orderId);
  const byOrder = async (service, sql) => new Map((await system.query(service, sql, [ids])).map((row) => [row.order_id, new Date(row.at).getTime()]));
  const succeeded = await byOrder(
    'payments',
    `SELECT envelope->'data'->>'orderId' AS order_id, recorded_at AS at FROM event_store
      WHERE event_type = 'PaymentOrderSucceeded' AND envelope->'data'->>'orderId' = ANY($1)`,
  );
  const credited = await byOrder(
    'ledger',
    `SELECT reference_id AS order_id, recorded_at AS at FROM ledger_postings WHERE code = 'PAYIN_SETTLED' AND reference_id = ANY($1)`,
  );
  const recorded = await byOrder(
    'callbacks',
    `SELECT subject_id AS order_id, created_at AS at FROM callback_deliveries WHERE subject_id = ANY($1) AND callback_type = 'payment.succeeded'`,
  );
  const claimed = await byOrder(
    'callbacks',
    `SELECT d.subject_id AS order_id, a.started_at AS at FROM callback_deliveries d JOIN callback_attempts a ON a.delivery_id = d.delivery_id AND a.attempt_number = 1
      WHERE d.subject_id = ANY($1) AND d.callback_type = 'payment.succeeded'`,
  );
  return chains.map((chain) => ({
    intendedAt: chain.intendedAt,
    answeredAt: chain.answeredAt,
    succeededAt: succeeded.get(chain.orderId) ?? null,
    creditedAt: credited.get(chain.orderId) ?? null,
    recordedAt: recorded.get(chain.orderId) ?? null,
    claimedAt: claimed.get(chain.orderId) ?? null,
    arrivedAt: callbackArrivals.get(chain.orderId) ?? null,
  }));
}

function reportChains(records) {
  const between = (from, to) => records.flatMap((record) => (record[from] !== null && record[to] !== null ? [record[to] - record[from]] : []));
  const hops = {
    'confirmation sent → answered': between('intendedAt', 'answeredAt'),
    'confirmation sent → PaymentOrderSucceeded stored (its transaction starts)': between('intendedAt', 'succeededAt'),
    'PaymentOrderSucceeded stored → the ledger credits it': between('succeededAt', 'creditedAt'),
    'PaymentOrderSucceeded stored → the dispatcher records the delivery': between('succeededAt', 'recordedAt'),
    'delivery recorded → first attempt claimed': between('recordedAt', 'claimedAt'),
    'claimed → callback arrives (webhook profile, signing, the POST)': between('claimedAt', 'arrivedAt'),
    'confirmation sent → callback arrives': between('intendedAt', 'arrivedAt'),
  };
  console.log(`\nAgent confirmations beside that load: ${records.length} at ${CHAINS}/s, each with a merchant of its own\n`);
  printHopTable(hops);
}

function printHopTable(hops) {
  console.log('| hop | n | p50 ms | p90 ms | p99 ms | mean ms |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [hop, values] of Object.entries(hops)) {
    if (values.length === 0) {
      console.log(`| ${hop} | 0 | — | — | — | — |`);
      continue;
    }
    const sorted = [...values].sort((a, b) => a - b);
    const at = (quantile) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))].toFixed(1);
    console.log(
      `| ${hop} | ${sorted.length} | ${at(0.5)} | ${at(0.9)} | ${at(0.99)} | ${(sorted.reduce((sum, value) => sum + value, 0) / sorted.length).toFixed(1)} |`,
    );
  }
}

function collectSpans(body) {
  for (const resourceSpans of body.resourceSpans ?? []) {
    const service = resourceSpans.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value?.stringValue ?? '?';
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          service,
          name: span.name,
          traceId: span.traceId,
          start: Number(BigInt(span.startTimeUnixNano) / 1000n) / 1_000,
          end: Number(BigInt(span.endTimeUnixNano) / 1000n) / 1_000,
        });
      }
    }
  }
}

function report(total, failed, achieved) {
  const byTrace = new Map();
  for (const span of spans) byTrace.set(span.traceId, [...(byTrace.get(span.traceId) ?? []), span]);
  const creates = breakDown(byTrace, (span) => span.name === 'POST /v2/payments/incoming');
  console.log(
    `W1 pay-in hops (KAFKA_PARTITIONS_CONSUMED_CONCURRENTLY=${options['partitions-concurrently'] ?? 'the services’ default'}): ${total} creates at ${RATE}/s scheduled (${achieved.toFixed(1)}/s achieved), ${failed} failed; ${creates.hops['whole request (gateway span)'].length} traces broken down, ${creates.withoutPaymentsSpan} without a payments span of their own (later messages of a batch)\n`,
  );
  printHopTable(creates.hops);
  if (CHAINS === 0) return;
  // The chains' confirmations through the same hops: the agent's back-office request, its command, its reply.
  const confirmations = breakDown(byTrace, (span) => span.name.startsWith('POST /backoffice/v1/agent/orders/') && span.name.endsWith('/confirm'));
  console.log(
    `\nThe agent confirmations' hops: ${confirmations.hops['whole request (gateway span)'].length} traces broken down, ${confirmations.withoutPaymentsSpan} without a payments span of their own\n`,
  );
  printHopTable(confirmations.hops);
}

/** Per hop, the traces whose gateway server span `isRequest` picks, joined with payments' batch span and the gateway's reply span. */
function breakDown(byTrace, isRequest) {
  const hops = {
    'request → payments starts the batch': [],
    'payments: the batch (load, decide, append, outbox, commit)': [],
    'payments ends → gateway takes the reply': [],
    'reply taken → answer sent': [],
    'payments ends → answer sent': [],
    'whole request (gateway span)': [],
  };
  let withoutPaymentsSpan = 0;
  for (const trace of byTrace.values()) {
    const request = trace.find((span) => span.service.startsWith('gateway') && isRequest(span));
    if (!request) continue;
    const command = trace.find((span) => span.service.startsWith('payments') && span.name.endsWith(' process'));
    if (!command) {
      withoutPaymentsSpan += 1;
      continue;
    }
    const reply = trace.find((span) => span.service.startsWith('gateway') && span.name.endsWith(' process'));
    hops['request → payments starts the batch'].push(command.start - request.start);
    hops['payments: the batch (load, decide, append, outbox, commit)'].push(command.end - command.start);
    hops['payments ends → answer sent'].push(request.end - command.end);
    if (reply) {
      hops['payments ends → gateway takes the reply'].push(reply.start - command.end);
      hops['reply taken → answer sent'].push(request.end - reply.start);
    }
    hops['whole request (gateway span)'].push(request.end - request.start);
  }
  return { hops, withoutPaymentsSpan };
}
