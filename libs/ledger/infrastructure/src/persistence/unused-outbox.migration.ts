import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the ledger's outbox table. The shared messaging schema (MessagingSchema1700000000000)
 * creates one in every service's database, but the ledger publishes nothing: no code of the
 * ledger enqueues to it and no relay reads it. A service that starts publishing adds it back.
 */
export class LedgerUnusedOutbox1700000030300 implements MigrationInterface {
  name = 'LedgerUnusedOutbox1700000030300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS outbox`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE outbox (
        position BIGSERIAL PRIMARY KEY,
        message_id UUID NOT NULL,
        topic TEXT NOT NULL,
        message_key TEXT NOT NULL,
        envelope JSON NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        published_at TIMESTAMPTZ
      )`);
    await queryRunner.query(`CREATE INDEX outbox_unpublished ON outbox (position) WHERE published_at IS NULL`);
  }
}
