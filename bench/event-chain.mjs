#!/usr/bin/env node
/**
 * `node bench/event-chain.mjs [--events 1000000] [--appends 4000] [--concurrency 4]`: what the
 * event store's hash chain costs (issue 38; docs/decisions/event-hash-chain.md), on a private
 * PostgreSQL server of its own (deploy/local/infra.mjs, test mode: full_page_writes off, so WAL
 * figures leave full-page images out on both sides alike).
 *
 * 1. Per append, side by side: `--appends` one-event appends, one at a time, each its own
 *    transaction, as a command appends, (a) with the chain (appendToStream from dist/, on the
 *    full messaging schema) and (b) without (the insert appendToStream made before the chain,
 *    on the schema before it): mean and p99 time per append and WAL bytes per append
 *    (pg_current_wal_lsn before and after).
 * 2. The audit over `--events` events: appended through appendToStream in batches of ten events
 *    per stream, `--concurrency` at once, then one anchor for the day, then verifyEventChain (what
 *    `npm run audit` runs on each store), timed: events per second.
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { build, builtEntry } from '../tools/build-workspace.mjs';

const require = createRequire(import.meta.url);
const { values: options } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, appends: { type: 'string', default: '4000' }, concurrency: { type: 'string', default: '4' } },
});
const EVENTS = Number(options.events);
const APPENDS = Number(options.appends);
const CONCURRENCY = Number(options.concurrency);
const PER_APPEND = 10;
for (const [name, value] of Object.entries({ events: EVENTS, appends: APPENDS, concurrency: CONCURRENCY }))
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer`);

await build({ logFile: '.local/build.log' });
const { Client } = require('pg');
const { DataSource } = require('typeorm');
const { startPostgres } = await import('../deploy/local/infra.mjs');
const messaging = require(builtEntry('libs/shared/messaging/src/index.ts'));
const {
  appendToStream,
  anchorClosedDays,
  createEnvelope,
  verifyEventChain,
  MessagingSchema1700000000000,
  MessagingUnreadIndexes1700000030000,
  MessagingEventHashChain1700000060380,
} = messaging;

const postgres = await startPostgres({ mode: 'test', log: () => undefined });
const admin = new Client({ connectionString: postgres.adminUrl });
await admin.connect();

/** A ledger-sized event (about 500 bytes of JSON). */
const event = (streamId, n) =>
  createEnvelope({
    type: 'PayInCredited',
    schemaVersion: 1,
    source: 'bench',
    subject: streamId,
    correlationId: `req_${n}`,
    data: {
      merchantId: 'mch_bench',
      currency: 'RUB',
      orderId: `A-${n}`,
      amountMinor: '150000',
      feeMinor: '3750',
      reason: 'payin_succeeded',
      occurredAt: new Date().toISOString(),
      postings: [{ postingId: `pst_${n}`, debitAccount: 'clearing', creditAccount: 'settlement_available', amountMinor: '146250', code: 'PAYIN' }],
    },
  });

async function database(name, migrations) {
  await admin.query(`CREATE DATABASE ${name}`);
  const url = Object.assign(new URL(postgres.adminUrl), { pathname: `/${name}` }).toString();
  const dataSource = new DataSource({ type: 'postgres', url, migrations, extra: { max: CONCURRENCY + 1 } });
  await dataSource.initialize();
  await dataSource.runMigrations();
  return dataSource;
}

/** The append before the chain: one INSERT of the events' rows. */
async function appendWithoutChain(manager, streamId, expectedVersion, events) {
  const values = [streamId];
  const rows = events.map((envelope, index) => {
    values.push(expectedVersion + index + 1, envelope.id, envelope.type, envelope.schemaVersion, JSON.stringify(envelope));
    const base = 1 + index * 5;
    return `($1, $${base + 1}::integer, $${base + 2}::uuid, $${base + 3}::text, $${base + 4}::integer, $${base + 5}::jsonb)`;
  });
  await manager.query(
    `INSERT INTO event_store (stream_id, stream_version, event_id, event_type, schema_version, envelope) VALUES ${rows.join(', ')} RETURNING stream_version`,
    values,
  );
}

const walLsn = async (dataSource) => (await dataSource.query(`SELECT pg_current_wal_lsn() AS lsn`))[0].lsn;
const walBytes = async (dataSource, from, to) => Number((await dataSource.query(`SELECT pg_wal_lsn_diff($1, $2) AS bytes`, [to, from]))[0].bytes);

/**
 * `--appends` one-event appends over a thousand streams into each database, one at a time and
 * alternating between them, so neither side gets the quieter moments of a shared machine;
 * the time and WAL per append of each. WAL is the server's, so each side's is taken from its
 * own appends' LSN differences.
 */
async function perAppend(sides) {
  const streams = 1_000;
  const warmUp = Math.min(500, APPENDS);
  const results = sides.map(() => ({ times: [], wal: 0 }));
  for (let index = 0; index < warmUp + APPENDS; index += 1) {
    const streamId = `ledger:mch_${index % streams}:RUB`;
    const version = Math.floor(index / streams);
    for (const [side, { dataSource, append }] of sides.entries()) {
      const from = await walLsn(dataSource);
      const started = performance.now();
      await append(dataSource.manager, streamId, version, [event(streamId, index)]);
      const time = performance.now() - started;
      if (index < warmUp) continue;
      results[side].times.push(time);
      results[side].wal += await walBytes(dataSource, from, await walLsn(dataSource));
    }
  }
  return results.map(({ times, wal }) => {
    times.sort((a, b) => a - b);
    return { meanMs: times.reduce((sum, time) => sum + time, 0) / times.length, p99Ms: times[Math.floor(times.length * 0.99)], walBytes: wal / APPENDS };
  });
}

const without = await database('chain_without', [MessagingSchema1700000000000, MessagingUnreadIndexes1700000030000]);
const withChain = await database('chain_with', [MessagingSchema1700000000000, MessagingUnreadIndexes1700000030000, MessagingEventHashChain1700000060380]);
const [before, after] = await perAppend([
  { dataSource: without, append: appendWithoutChain },
  { dataSource: withChain, append: appendToStream },
]);
console.log(`\nPer append (${APPENDS} one-event appends, one at a time, each committed):`);
console.log('| | mean | p99 | WAL per append |\n| --- | --- | --- | --- |');
for (const [name, result] of [
  ['without the chain', before],
  ['with the chain', after],
])
  console.log(`| ${name} | ${result.meanMs.toFixed(3)} ms | ${result.p99Ms.toFixed(3)} ms | ${Math.round(result.walBytes)} B |`);
console.log(
  `| difference | ${(after.meanMs - before.meanMs).toFixed(3)} ms | ${(after.p99Ms - before.p99Ms).toFixed(3)} ms | ${Math.round(after.walBytes - before.walBytes)} B |`,
);
await without.destroy();

const scratch = await database('chain_audit', [MessagingSchema1700000000000, MessagingUnreadIndexes1700000030000, MessagingEventHashChain1700000060380]);
const streams = Math.ceil(EVENTS / PER_APPEND);
let next = 0;
const loadStarted = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let stream = next++; stream < streams; stream = next++) {
      const streamId = `ledger:mch_${stream}:RUB`;
      const count = Math.min(PER_APPEND, EVENTS - stream * PER_APPEND);
      await appendToStream(
        scratch.manager,
        streamId,
        0,
        Array.from({ length: count }, (_, index) => event(streamId, stream * PER_APPEND + index)),
      );
    }
  }),
);
const loadSeconds = (performance.now() - loadStarted) / 1000;
console.log(
  `\nLoaded ${EVENTS} events (${streams} streams, ${PER_APPEND} per append, ${CONCURRENCY} at once) in ${loadSeconds.toFixed(1)} s: ${Math.round(EVENTS / loadSeconds)} events/s appended`,
);
await anchorClosedDays(scratch.manager, new Date(Date.now() + 86_400_000 + 3_600_000));
await scratch.destroy();

const reader = new Client({ connectionString: Object.assign(new URL(postgres.adminUrl), { pathname: '/chain_audit' }).toString() });
await reader.connect();
const auditStarted = performance.now();
const verification = await verifyEventChain(reader);
const auditSeconds = (performance.now() - auditStarted) / 1000;
console.log(
  `Audit: ${verification.events} events in ${verification.streams} streams, ${verification.anchors} anchor(s), ${verification.findings.length} finding(s), in ${auditSeconds.toFixed(1)} s: ${Math.round(verification.events / auditSeconds)} events/s verified`,
);
await reader.end();
await withChain.destroy();
await admin.end();
await postgres.stop();
