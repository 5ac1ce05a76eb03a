/**
 * Goal: the event store's hash chain and daily anchors catch every change to stored events and
 * say which event: one altered, one deleted (inside a stream, at its tail, a whole stream), two
 * swapped, one altered with every later hash recomputed; the chain costs unrelated streams no
 * conflicts; events stored before the chain get their hashes from the migration. Method: a
 * private database on the real PostgreSQL server, events appended through appendToStream, the
 * store then changed by SQL with the append-only trigger disabled, as a superuser could.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createEnvelope, type MessageEnvelope } from '../envelope';
import { anchorClosedDays, listAnchors, streamHeadBefore } from './event-anchors';
import { chainHash, eventDigest } from './event-chain';
import { verifyEventChain, type ChainFinding } from './event-chain-audit';
import { appendToStream, StreamVersionMissingError } from './event-store';
import { MessagingEventHashChain1700000060380, MessagingSchema1700000000000, MessagingUnreadIndexes1700000030000 } from './messaging-schema.migration';

const runId = `chain${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
// Noon (UTC) of the day after the run's: today is then the one closed day, whatever the hour now
// (a day and an hour from now closed tomorrow too when the run started after 23:00 UTC).
const startedAt = new Date();
const TOMORROW_NOON = new Date(Date.UTC(startedAt.getUTCFullYear(), startedAt.getUTCMonth(), startedAt.getUTCDate() + 1, 12));

const event = (streamId: string, n: number): MessageEnvelope =>
  createEnvelope({
    type: 'ThingHappened',
    schemaVersion: 1,
    source: 'test',
    subject: streamId,
    data: { n, note: 'ünïcode ✓', amountMinor: '100', nested: { b: 1, a: [1, 2.5, null] } },
    correlationId: 'req_test',
  });

describe('event hash chain and anchors on real Postgres', () => {
  const admin = new Client({ connectionString: process.env['TEST_PG_ADMIN_URL'] });
  const databases: DataSource[] = [];

  async function privateDatabase(name: string, migrations: Array<new () => unknown>): Promise<{ dataSource: DataSource; client: Client }> {
    await admin.query(`CREATE DATABASE "${runId}_${name}"`);
    const url = new URL(process.env['TEST_PG_ADMIN_URL'] ?? '');
    url.pathname = `/${runId}_${name}`;
    const dataSource = new DataSource({ type: 'postgres', url: url.toString(), migrations: migrations as never, extra: { max: 12 } });
    await dataSource.initialize();
    await dataSource.runMigrations();
    databases.push(dataSource);
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    return { dataSource, client };
  }

  beforeAll(() => admin.connect());
  afterAll(async () => {
    for (const dataSource of databases) await dataSource.destroy();
    await admin.end();
  });

  const ALL = [MessagingSchema1700000000000, MessagingUnreadIndexes1700000030000, MessagingEventHashChain1700000060380];

  async function appendStreams(dataSource: DataSource, streams: Record<string, number>): Promise<void> {
    for (const [streamId, count] of Object.entries(streams)) {
      // Two appends per stream: links made inside one statement and across statements.
      await appendToStream(
        dataSource.manager,
        streamId,
        0,
        Array.from({ length: count - 1 }, (_, index) => event(streamId, index + 1)),
      );
      await appendToStream(dataSource.manager, streamId, count - 1, [event(streamId, count)]);
    }
  }

  async function positionOf(client: Client, streamId: string, version: number): Promise<string> {
    const { rows } = await client.query<{ global_position: string }>(`SELECT global_position FROM event_store WHERE stream_id = $1 AND stream_version = $2`, [
      streamId,
      version,
    ]);
    return rows[0].global_position;
  }

  /** A superuser's change to the append-only store. */
  async function tamper(client: Client, sql: string, values: unknown[] = []): Promise<void> {
    await client.query(`ALTER TABLE event_store DISABLE TRIGGER event_store_append_only`);
    await client.query(sql, values);
    await client.query(`ALTER TABLE event_store ENABLE TRIGGER event_store_append_only`);
  }

  const findingOf = (findings: ChainFinding[], streamId: string) => findings.find((finding) => finding.streamId === streamId);

  it('chains each event to the one before it in its stream, in the append statement, and verifies clean', async () => {
    const { dataSource, client } = await privateDatabase('clean', ALL);
    await appendStreams(dataSource, { 'thing:a': 3, 'thing:b': 2 });
    const { rows } = await client.query<{ stream_version: number; envelope: unknown; hash: Buffer }>(
      `SELECT stream_version, envelope, hash FROM event_store WHERE stream_id = 'thing:a' ORDER BY stream_version`,
    );
    let previous: Buffer = Buffer.alloc(0);
    for (const row of rows) {
      previous = chainHash(previous, eventDigest('thing:a', row.stream_version, row.envelope));
      expect(row.hash.toString('hex')).toBe(previous.toString('hex'));
    }
    await expect(appendToStream(dataSource.manager, 'thing:a', 7, [event('thing:a', 8)])).rejects.toBeInstanceOf(StreamVersionMissingError);
    expect(await anchorClosedDays(dataSource.manager, TOMORROW_NOON)).toHaveLength(1);
    expect(await anchorClosedDays(dataSource.manager, TOMORROW_NOON)).toEqual([]);
    const [anchor] = await listAnchors(dataSource.manager, { limit: 10 });
    expect(anchor).toMatchObject({ streams: 2, previousHash: null });
    expect(await streamHeadBefore(dataSource.manager, 'thing:a', TOMORROW_NOON)).toEqual({ streamVersion: 3, hash: previous.toString('hex') });
    const verification = await verifyEventChain(client);
    expect(verification).toMatchObject({ events: 5, streams: 2, anchors: 1, findings: [] });
    await client.end();
  });

  it('finds and locates an altered, a deleted, two swapped events, a dropped tail, a dropped stream and a rewritten chain', async () => {
    const { dataSource, client } = await privateDatabase('tampered', ALL);
    await appendStreams(dataSource, { 'altered:1': 3, 'deleted:1': 4, 'swapped:1': 4, 'tail:1': 3, 'gone:1': 2, 'rewritten:1': 3, 'intact:1': 3 });
    await anchorClosedDays(dataSource.manager, TOMORROW_NOON);
    expect((await verifyEventChain(client)).findings).toEqual([]);
    const positions = {
      altered: await positionOf(client, 'altered:1', 2),
      deleted: await positionOf(client, 'deleted:1', 3),
      swapped: await positionOf(client, 'swapped:1', 2),
    };

    await tamper(
      client,
      `UPDATE event_store SET envelope = jsonb_set(envelope, '{data,amountMinor}', '"999"') WHERE stream_id = 'altered:1' AND stream_version = 2`,
    );
    await tamper(client, `DELETE FROM event_store WHERE stream_id = 'deleted:1' AND stream_version = 2`);
    await tamper(
      client,
      `UPDATE event_store e SET envelope = o.envelope FROM event_store o
        WHERE e.stream_id = 'swapped:1' AND o.stream_id = 'swapped:1' AND e.stream_version IN (2, 3) AND o.stream_version = 5 - e.stream_version`,
    );
    await tamper(client, `DELETE FROM event_store WHERE stream_id = 'tail:1' AND stream_version = 3`);
    await tamper(client, `DELETE FROM event_store WHERE stream_id = 'gone:1'`);
    // The careful forger: changes version 2 and recomputes every later hash so the chain verifies.
    const { rows } = await client.query<{ stream_version: number; envelope: MessageEnvelope & { data: { note: string } }; hash: Buffer }>(
      `SELECT stream_version, envelope, hash FROM event_store WHERE stream_id = 'rewritten:1' ORDER BY stream_version`,
    );
    let previous = rows[0].hash;
    for (const row of rows.slice(1)) {
      const envelope = row.stream_version === 2 ? { ...row.envelope, data: { ...row.envelope.data, note: 'forged' } } : row.envelope;
      previous = chainHash(previous, eventDigest('rewritten:1', row.stream_version, envelope));
      await tamper(client, `UPDATE event_store SET envelope = $1, hash = $2 WHERE stream_id = 'rewritten:1' AND stream_version = $3`, [
        JSON.stringify(envelope),
        previous,
        row.stream_version,
      ]);
    }

    const { findings } = await verifyEventChain(client);
    expect(findingOf(findings, 'altered:1')).toMatchObject({ kind: 'altered', streamVersion: 2, globalPosition: positions.altered });
    expect(findingOf(findings, 'deleted:1')).toMatchObject({ kind: 'missing', streamVersion: 2, globalPosition: positions.deleted });
    expect(findingOf(findings, 'swapped:1')).toMatchObject({ kind: 'reordered', streamVersion: 2, globalPosition: positions.swapped });
    expect(findingOf(findings, 'tail:1')).toMatchObject({ kind: 'missing', streamVersion: 3 });
    expect(findingOf(findings, 'gone:1')).toMatchObject({ kind: 'missing' });
    expect(findingOf(findings, 'rewritten:1')).toMatchObject({ kind: 'altered', streamVersion: 3 });
    expect(findingOf(findings, 'rewritten:1')?.message).toContain('versions 1-3');
    expect(findingOf(findings, 'intact:1')).toBeUndefined();
    expect(findings).toHaveLength(6);
    for (const finding of findings) expect(finding.message).toMatch(/stream \S+/);
    await client.end();
  });

  it('finds two events swapped whole (their versions exchanged) and an anchor changed', async () => {
    const { dataSource, client } = await privateDatabase('swapped', ALL);
    await appendStreams(dataSource, { 'rows:1': 3 });
    await anchorClosedDays(dataSource.manager, TOMORROW_NOON);
    await tamper(client, `UPDATE event_store SET stream_version = 100 WHERE stream_id = 'rows:1' AND stream_version = 1`);
    await tamper(client, `UPDATE event_store SET stream_version = 1 WHERE stream_id = 'rows:1' AND stream_version = 2`);
    await tamper(client, `UPDATE event_store SET stream_version = 2 WHERE stream_id = 'rows:1' AND stream_version = 100`);
    await client.query(`UPDATE event_store_anchors SET streams = streams + 1, hash = sha256(hash)`);
    const { findings } = await verifyEventChain(client);
    expect(findings[0]).toMatchObject({ kind: 'reordered', streamId: 'rows:1', streamVersion: 1 });
    expect(findings.find((finding) => finding.kind === 'anchor')?.message).toContain('does not hash to the heads it lists');
    await client.end();
  });

  it('appends on unrelated streams at once without a conflict: the chain locks nothing beyond the stream', async () => {
    const { dataSource, client } = await privateDatabase('concurrent', ALL);
    const streams = Array.from({ length: 40 }, (_, index) => `parallel:${index}`);
    for (let round = 0; round < 5; round += 1) {
      const results = await Promise.allSettled(
        streams.map((streamId) => dataSource.transaction((manager) => appendToStream(manager, streamId, round, [event(streamId, round + 1)]))),
      );
      expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    }
    expect(await verifyEventChain(client)).toMatchObject({ events: 200, streams: 40, findings: [] });
    await client.end();
  });

  it('gives the events stored before the chain their hashes in the migration, stream by stream in version order', async () => {
    const { dataSource, client } = await privateDatabase('backfill', [MessagingSchema1700000000000, MessagingUnreadIndexes1700000030000]);
    for (const streamId of ['old:b', 'old:a'])
      for (let version = 1; version <= 3; version += 1) {
        const envelope = event(streamId, version);
        await client.query(
          `INSERT INTO event_store (stream_id, stream_version, event_id, event_type, schema_version, envelope) VALUES ($1, $2, $3, $4, 1, $5)`,
          [streamId, version, envelope.id, envelope.type, JSON.stringify(envelope)],
        );
      }
    dataSource.setOptions({ migrations: ALL as never });
    await dataSource.destroy();
    await dataSource.initialize();
    await dataSource.runMigrations();
    await appendToStream(dataSource.manager, 'old:a', 3, [event('old:a', 4)]);
    expect(await verifyEventChain(client)).toMatchObject({ events: 7, streams: 2, findings: [] });
    await expect(client.query(`DELETE FROM event_store WHERE stream_id = 'old:a'`)).rejects.toThrow(/append-only/);
    await client.end();
  });
});
