#!/usr/bin/env node
/**
 * `node bench/callback-fairness.mjs [--fresh 300] [--dead 5000]`: how long a merchant's new
 * callback to a healthy endpoint waits while the same merchant has thousands of callbacks to a
 * dead host due for retry (issue 17 item 6). Prints p50, p99 and max of the first attempt's
 * latency, from publishing the source event on Kafka to the receiver having the request.
 *
 * The dispatcher runs in this process, wired as apps/callback-dispatcher wires it (the
 * callbacks test kit, from dist/), on real Kafka and PostgreSQL, with production's concurrency,
 * timeout and poll settings. Two phases, each on a fresh database:
 * - breaker never opens: the dead host's 5,000 deliveries stay due (a 1 s retry schedule) and
 *   are attempted all along, so the claim query works under that load the whole time;
 * - breaker as configured by default: the dead origin's circuit opens after 5 failures.
 * The dead host is a name that does not resolve (ENOTFOUND, as in the incident); the healthy
 * endpoint is an HTTP server on 127.0.0.1.
 *
 * Uses KAFKA_BROKERS and TEST_PG_ADMIN_URL when set (figures then depend on whatever else runs
 * there), else starts a private broker and PostgreSQL server like `npm run bench`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build, builtEntry } from '../tools/build-workspace.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: { fresh: { type: 'string', default: '300' }, dead: { type: 'string', default: '5000' }, 'interval-ms': { type: 'string', default: '30' } },
});
const freshCount = Number(options.fresh);
const deadCount = Number(options.dead);
const intervalMs = Number(options['interval-ms']);
const DEAD_HOST = 'dead-endpoint.bench';

console.log(`[callback-fairness] building (Nx, cached; log in .local/build.log)`);
await build({ projects: ['callbacks-testing', 'callbacks-domain'], logFile: join(root, '.local/build.log') });
let infra = null;
if (!(process.env.KAFKA_BROKERS && process.env.TEST_PG_ADMIN_URL)) {
  const { startInfra } = await import('../deploy/local/infra.mjs');
  console.log('[callback-fairness] starting a private Kafka broker and PostgreSQL server');
  infra = await startInfra({ mode: 'test' });
  Object.assign(process.env, { KAFKA_BROKERS: infra.kafka.brokers, TEST_PG_ADMIN_URL: infra.postgres.adminUrl });
}
const require = createRequire(import.meta.url);
require('reflect-metadata');
const kit = require(builtEntry('libs/callbacks/testing/src/index.ts'));
const { parseRetrySchedule } = require(builtEntry('libs/callbacks/domain/src/index.ts'));

/** Production's defaults (apps/callback-dispatcher/src/callback-dispatcher.config.ts) where they shape the claim. */
const PRODUCTION_LIKE = { attemptTimeoutMs: 15_000, perOriginConcurrency: 4, totalConcurrency: 64, pollIntervalMs: 1_000, leaseMs: 60_000 };

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function phase(label, settings) {
  const service = await kit.CallbacksTestService.start({ lookup: kit.mappedLookup({ [DEAD_HOST]: null }), settings: { ...PRODUCTION_LIKE, ...settings } });
  const receivers = kit.receiverPool();
  try {
    const merchant = service.gateway.addMerchant();
    const live = await receivers.start();
    await service.publish([
      kit.externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId: kit.newOrderId('warm-up'), callbackUrl: live.url() }),
    ]);
    await kit.eventually(
      () => live.received.length,
      (count) => count === 1,
      60_000,
      'the warm-up callback',
    );
    await service.query(
      `INSERT INTO callback_deliveries (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type,
                                        state_version, target_url, body, status, attempt_count, next_attempt_at, created_at)
       SELECT 'msg_dead' || n, gen_random_uuid(), 'PaymentOrderSucceeded', 'payments.order.events', $1, 'payment_order', 'dead-' || n, 'payment.succeeded',
              2, $2, '{}', 'pending', 1, now() - interval '10 minutes' + n * interval '1 millisecond', now() - interval '1 hour'
         FROM generate_series(1, $3::int) AS n`,
      [merchant.merchantId, `http://${DEAD_HOST}:8080/callbacks`, deadCount],
    );
    await kit.eventually(
      () => service.query(`SELECT count(*)::int AS failed FROM callback_attempts WHERE delivery_id LIKE 'msg_dead%'`),
      ([row]) => row.failed >= 4,
      30_000,
      'attempts to the dead host',
    );
    const publishedAt = new Map();
    for (let index = 0; index < freshCount; index += 1) {
      const event = kit.externalPaymentEvent('PaymentOrderSucceeded', {
        merchantId: merchant.merchantId,
        orderId: kit.newOrderId(`fresh-${index}`),
        callbackUrl: live.url(),
      });
      publishedAt.set(`msg_${event.id.replace(/-/g, '')}`, Date.now());
      await service.publish([event]);
      await sleep(intervalMs);
    }
    await kit.eventually(
      () => live.received.length,
      (count) => count >= freshCount + 1,
      120_000,
      'every fresh callback',
    );
    const latencies = live.received
      .map((callback) => callback.receivedAtMs - (publishedAt.get(String(callback.headers['webhook-id'])) ?? Number.NaN))
      .filter((ms) => Number.isFinite(ms))
      .sort((a, b) => a - b);
    const [{ attempts }] = await service.query(`SELECT count(*)::int AS attempts FROM callback_attempts WHERE delivery_id LIKE 'msg_dead%'`);
    return { label, samples: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1), deadAttempts: attempts };
  } finally {
    await service.stop();
    await receivers.stopAll();
  }
}

let code = 0;
try {
  const oneSecondRetries = parseRetrySchedule(['0s', ...Array.from({ length: 49 }, () => '1s')].join(','), 0);
  const results = [
    await phase('breaker never opens (dead host attempted throughout)', {
      circuitFailureThreshold: 1_000_000,
      circuitCooldownMs: 30_000,
      retrySchedule: oneSecondRetries,
    }),
    await phase('breaker at its defaults (opens after 5 failures, 30 s cool-down)', {
      circuitFailureThreshold: 5,
      circuitCooldownMs: 30_000,
      retrySchedule: oneSecondRetries,
    }),
  ];
  console.log(
    `\n### Callback fairness: ${deadCount} due retries to a dead host, ${freshCount} fresh callbacks to a live endpoint (same merchant), one every ${intervalMs} ms\n`,
  );
  console.log('| Phase | Fresh callbacks | p50 ms | p99 ms | max ms | attempts to the dead host meanwhile |');
  console.log('|---|---|---|---|---|---|');
  for (const result of results) console.log(`| ${result.label} | ${result.samples} | ${result.p50} | ${result.p99} | ${result.max} | ${result.deadAttempts} |`);
  console.log('\nLatency: from publishing the source event on Kafka to the receiver having the request (consume, record, claim, sign, send).');
} catch (error) {
  console.error(`[callback-fairness] ${error.stack ?? error}`);
  code = 1;
} finally {
  if (infra) await infra.stop().catch((error) => console.error(`[callback-fairness] stopping infrastructure: ${error.message}`));
}
process.exit(code);
