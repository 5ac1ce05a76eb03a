import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CHAIN_GENESIS, chainHash, eventDigest } from './event-chain';

/**
 * The tables every event-sourced service owns in its own database: the append-only event
 * store, the transactional outbox and the consumer inbox.
 */
export class MessagingSchema1700000000000 implements MigrationInterface {
  name = 'MessagingSchema1700000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE event_store (
        global_position BIGSERIAL PRIMARY KEY,
        stream_id TEXT NOT NULL,
        stream_version INTEGER NOT NULL CHECK (stream_version >= 1),
        event_id UUID NOT NULL UNIQUE,
        event_type TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        envelope JSONB NOT NULL,
        recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        -- Optimistic concurrency: two writers expecting the same version cannot both append.
        CONSTRAINT event_store_stream_version_unique UNIQUE (stream_id, stream_version)
      )`);
    // Events are facts: the store refuses to change or forget them.
    await queryRunner.query(`
      CREATE FUNCTION event_store_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'event_store is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER event_store_append_only BEFORE UPDATE OR DELETE ON event_store
      FOR EACH ROW EXECUTE FUNCTION event_store_is_append_only()`);

    await queryRunner.query(`
      CREATE TABLE outbox (
        position BIGSERIAL PRIMARY KEY,
        message_id UUID NOT NULL UNIQUE,
        topic TEXT NOT NULL,
        message_key TEXT NOT NULL,
        -- JSON, not JSONB: the relay publishes the envelope exactly as written, key order included.
        envelope JSON NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        published_at TIMESTAMPTZ
      )`);
    await queryRunner.query(`CREATE INDEX outbox_unpublished ON outbox (position) WHERE published_at IS NULL`);

    await queryRunner.query(`
      CREATE TABLE inbox (
        consumer TEXT NOT NULL,
        message_id UUID NOT NULL,
        processed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, message_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE inbox`);
    await queryRunner.query(`DROP TABLE outbox`);
    await queryRunner.query(`DROP TABLE event_store`);
    await queryRunner.query(`DROP FUNCTION event_store_is_append_only`);
  }
}

/**
 * Drops the unique indexes on event and message ids: no query reads by them (events are read by
 * stream and version, outbox rows by position), the ids are random UUIDs made once per
 * envelope, and each index cost every append and every outbox write (and the relay's update of
 * each row) a random-position index insert in the WAL. Inboxes key on message ids themselves.
 */
export class MessagingUnreadIndexes1700000030000 implements MigrationInterface {
  name = 'MessagingUnreadIndexes1700000030000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE event_store DROP CONSTRAINT IF EXISTS event_store_event_id_key`);
    await queryRunner.query(`ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_message_id_key`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE outbox ADD CONSTRAINT outbox_message_id_key UNIQUE (message_id)`);
    await queryRunner.query(`ALTER TABLE event_store ADD CONSTRAINT event_store_event_id_key UNIQUE (event_id)`);
  }
}

const BACKFILL_BATCH = 5_000;

/**
 * The event store's hash chain and daily anchors (docs/decisions/event-hash-chain.md): a `hash`
 * per event, chained per stream; event_store_chain, which appendToStream calls in its one
 * statement to link the events it appends; the anchor tables the anchoring task fills once per
 * closed UTC day; a BRIN index on recorded_at for that task's day scans (a few pages, and next
 * to nothing per append since rows arrive in time order). Events already stored get their
 * hashes here, stream by stream in version order, with the append-only trigger off for the
 * backfill only (a migration runs as the table's owner).
 */
export class MessagingEventHashChain1700000060380 implements MigrationInterface {
  name = 'MessagingEventHashChain1700000060380';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE event_store ADD COLUMN hash BYTEA`);
    await queryRunner.query(`
      CREATE FUNCTION event_store_chain(p_stream_id TEXT, p_expected_version INTEGER, p_digests BYTEA[])
      RETURNS TABLE (chain_version INTEGER, chain_hash BYTEA) LANGUAGE plpgsql STABLE AS $$
      DECLARE
        previous BYTEA := ''::bytea;
      BEGIN
        IF p_expected_version > 0 THEN
          SELECT e.hash INTO previous FROM event_store e WHERE e.stream_id = p_stream_id AND e.stream_version = p_expected_version;
          -- No event to chain to: nothing is appended (the caller reports the missing version).
          IF previous IS NULL THEN RETURN; END IF;
        END IF;
        FOR i IN 1 .. coalesce(array_length(p_digests, 1), 0) LOOP
          previous := sha256(previous || p_digests[i]);
          chain_version := p_expected_version + i;
          chain_hash := previous;
          RETURN NEXT;
        END LOOP;
      END $$`);
    await this.backfill(queryRunner);
    await queryRunner.query(`ALTER TABLE event_store ALTER COLUMN hash SET NOT NULL`);
    await queryRunner.query(`CREATE INDEX event_store_recorded_at ON event_store USING brin (recorded_at)`);
    await queryRunner.query(`
      CREATE TABLE event_store_anchors (
        day DATE PRIMARY KEY,
        previous_hash BYTEA,
        streams INTEGER NOT NULL,
        hash BYTEA NOT NULL,
        made_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE event_store_anchor_heads (
        day DATE NOT NULL REFERENCES event_store_anchors (day),
        stream_id TEXT NOT NULL,
        stream_version INTEGER NOT NULL,
        hash BYTEA NOT NULL,
        PRIMARY KEY (day, stream_id)
      )`);
  }

  private async backfill(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE event_store DISABLE TRIGGER event_store_append_only`);
    let after: { streamId: string; version: number } = { streamId: '', version: 0 };
    let previous = CHAIN_GENESIS;
    for (;;) {
      const rows: Array<{ global_position: string; stream_id: string; stream_version: number; envelope: unknown }> = await queryRunner.query(
        `SELECT global_position, stream_id, stream_version, envelope FROM event_store WHERE (stream_id, stream_version) > ($1, $2) ORDER BY stream_id, stream_version LIMIT ${BACKFILL_BATCH}`,
        [after.streamId, after.version],
      );
      if (rows.length === 0) break;
      const hashes = rows.map((row, index) => {
        const startsStream = index === 0 ? row.stream_id !== after.streamId : row.stream_id !== rows[index - 1].stream_id;
        previous = chainHash(startsStream ? CHAIN_GENESIS : previous, eventDigest(row.stream_id, row.stream_version, row.envelope));
        return previous;
      });
      await queryRunner.query(
        `UPDATE event_store e SET hash = v.hash FROM unnest($1::bigint[], $2::bytea[]) AS v (position, hash) WHERE e.global_position = v.position`,
        [rows.map((row) => row.global_position), hashes],
      );
      const last = rows[rows.length - 1];
      after = { streamId: last.stream_id, version: last.stream_version };
    }
    await queryRunner.query(`ALTER TABLE event_store ENABLE TRIGGER event_store_append_only`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE event_store_anchor_heads`);
    await queryRunner.query(`DROP TABLE event_store_anchors`);
    await queryRunner.query(`DROP INDEX event_store_recorded_at`);
    await queryRunner.query(`DROP FUNCTION event_store_chain`);
    await queryRunner.query(`ALTER TABLE event_store DROP COLUMN hash`);
  }
}

/**
 * The relay deletes what it published instead of stamping `published_at` on it
 * (docs/decisions/one-round-trip-per-command.md): an update wrote each row again, envelope and
 * all, and its index entries; a delete writes a few bytes per row. Every row left in the outbox
 * is unpublished, so the primary key is the relay's index and the partial one goes. Rows
 * already published are deleted here. The column stays, unused, so a replica of the previous
 * release still relays during a rolling deployment (both take the same advisory lock).
 */
export class MessagingOutboxDeletedOnPublish1700000037100 implements MigrationInterface {
  name = 'MessagingOutboxDeletedOnPublish1700000037100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM outbox WHERE published_at IS NOT NULL`);
    await queryRunner.query(`DROP INDEX IF EXISTS outbox_unpublished`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX outbox_unpublished ON outbox (position) WHERE published_at IS NULL`);
  }
}
