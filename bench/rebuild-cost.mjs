#!/usr/bin/env node
/**
 * `node bench/rebuild-cost.mjs [--orders 20000] [--seconds 8] [--concurrency 4]`: what the
 * projection rebuild costs (issue 38; docs/operations/projection-rebuild.md). On a scratch
 * payments database (real migrations) it writes `--orders` pay-ins through the command path the
 * service runs (a third of them paid: about 1.7 events per order), then measures:
 *   - the rebuild's rate, in events per second, alone and while the load below runs;
 *   - the live p99 of a create-then-read loop (`--concurrency` workers: create a pay-in through
 *     the command path, then read its row as GET /v2/payments does) for `--seconds` without a
 *     rebuild, then while the rebuild of payments' order projection runs (report only, so the
 *     load keeps its rows; the lock of the last catch-up and comparison is included).
 * Uses TEST_PG_ADMIN_URL's server when set, otherwise starts a private one (deploy/local/infra.mjs).
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build, builtEntry, root } from '../tools/build-workspace.mjs';

const { values } = parseArgs({
  options: { orders: { type: 'string', default: '20000' }, seconds: { type: 'string', default: '8' }, concurrency: { type: 'string', default: '4' } },
});
const orders = Number(values.orders);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

console.log('[rebuild-cost] building (Nx, cached; log in .local/build.log)');
await build({ projects: ['payments-infrastructure'], logFile: join(root, '.local/build.log') });
let infra = null;
if (!process.env.TEST_PG_ADMIN_URL) {
  const { startInfra } = await import('../deploy/local/infra.mjs');
  console.log('[rebuild-cost] starting a private PostgreSQL server (and Kafka, unused)');
  infra = await startInfra({ mode: 'test' });
  process.env.TEST_PG_ADMIN_URL = infra.postgres.adminUrl;
}
const require = createRequire(import.meta.url);
require('reflect-metadata');
const { PAYMENTS_MIGRATIONS, PAYMENT_ORDERS_PROJECTION } = require(builtEntry('libs/payments/infrastructure/src/index.ts'));
const { handlePaymentOrderCommand } = require(builtEntry('libs/payments/infrastructure/src/commands/payment-order.stream.ts'));
const { rebuildProjection } = require(builtEntry('libs/shared/command-handling/src/index.ts'));
const { DataSource } = require('typeorm');
const { Client } = require('pg');

const MERCHANT = 'mch_bench';
const CATALOG = [
  {
    method: 'bank_card',
    direction: 'incoming',
    country: 'RU',
    currency: 'RUB',
    feeRateBasisPoints: 150,
    feeFixedMinor: 0n,
    minAmountMinor: 100n,
    maxAmountMinor: 100_000_000n,
    expiryMinutes: 30,
  },
];
const database = `rebuildbench_${randomBytes(4).toString('hex')}`;
const admin = new Client({ connectionString: process.env.TEST_PG_ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const url = new URL(process.env.TEST_PG_ADMIN_URL);
url.pathname = `/${database}`;
// The service's pool and the rebuild's own, as two processes would have.
const service = new DataSource({ type: 'postgres', url: url.toString(), migrations: PAYMENTS_MIGRATIONS, extra: { max: concurrency + 2 } });
const rebuilder = new DataSource({ type: 'postgres', url: url.toString(), extra: { max: 2 } });

const noLedger = new Proxy({}, { get: () => () => Promise.reject(new Error('pay-ins place no hold')) });
const run = (orderId, command) =>
  handlePaymentOrderCommand(noLedger, { dataSource: service }, MERCHANT, orderId, command, { id: `${orderId}-${command.type}`, correlationId: 'bench' });
const create = (orderId) =>
  run(orderId, {
    type: 'CreateIncomingPayment',
    data: { merchantId: MERCHANT, orderId, amountMinor: 10_000n, currency: 'RUB', country: 'RU', callbackUrl: 'https://shop.example/cb', method: 'bank_card' },
    metadata: { now: new Date(), payerPageTokenHash: `hash_${orderId}`, methodCatalog: CATALOG },
  });
const pay = async (orderId) => {
  await run(orderId, { type: 'AssignAgent', data: { agentId: 'agt_1' }, metadata: { now: new Date() } });
  await run(orderId, { type: 'ConfirmIncomingPayment', data: { agentId: 'agt_1' }, metadata: { now: new Date() } });
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** `concurrency` workers creating a pay-in and reading its row, until `done()`; the latencies of each pair, in ms. */
async function loop(prefix, done) {
  const latencies = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!done()) {
        const orderId = `${prefix}-${next++}`;
        const started = performance.now();
        await create(orderId);
        await service.query(`SELECT * FROM payment_orders WHERE merchant_id = $1 AND order_id = $2`, [MERCHANT, orderId]);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

const summary = (latencies) =>
  `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms over ${latencies.length} create+read pairs`;

try {
  await service.initialize();
  await service.runMigrations();
  await rebuilder.initialize();
  console.log(`[rebuild-cost] writing ${orders} pay-ins through the command path`);
  let seeded = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let index = seeded++; index < orders; index = seeded++) {
        await create(`S-${index}`);
        if (index % 3 === 0) await pay(`S-${index}`);
      }
    }),
  );
  const [{ events }] = await service.query(`SELECT count(*)::int AS events FROM event_store`);

  const alone = await rebuildProjection(rebuilder, PAYMENT_ORDERS_PROJECTION, { switch: false });
  console.log(`[rebuild-cost] rebuild alone: ${alone.eventsFolded} of ${events} events in ${alone.seconds.toFixed(2)} s = ${alone.eventsPerSecond} events/s`);

  const deadline = Date.now() + seconds * 1000;
  const quiet = await loop('Q', () => Date.now() > deadline);
  console.log(`[rebuild-cost] live loop without a rebuild: ${summary(quiet)}`);

  let rebuilding = true;
  const during = loop('R', () => !rebuilding);
  const busy = await rebuildProjection(rebuilder, PAYMENT_ORDERS_PROJECTION, { switch: false });
  rebuilding = false;
  const loaded = await during;
  console.log(
    `[rebuild-cost] rebuild under load: ${busy.eventsFolded} events in ${busy.seconds.toFixed(2)} s = ${busy.eventsPerSecond} events/s; differences: ${busy.differences.length}`,
  );
  console.log(`[rebuild-cost] live loop during the rebuild: ${summary(loaded)}`);
} finally {
  await rebuilder.destroy().catch(() => {});
  await service.destroy().catch(() => {});
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
  await infra?.stop();
}
