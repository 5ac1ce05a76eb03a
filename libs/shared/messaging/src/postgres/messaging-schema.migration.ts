import type { MigrationInterface, QueryRunner } from 'typeorm';

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
