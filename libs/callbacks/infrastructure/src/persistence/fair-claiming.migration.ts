import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair claiming: each delivery's destination origin, and one circuit breaker per origin that
 * every replica reads and writes (the breaker lives in this database, not in a replica's memory).
 */
export class CallbacksFairClaiming1700000005000 implements MigrationInterface {
  name = 'CallbacksFairClaiming1700000005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // scheme://host[:port], lower case, the scheme's default port dropped, as written in the URL
    // (no DNS: two names for one server are two origins). A URL the pattern does not match is
    // its own origin: the sender refuses it on its first attempt anyway. Generated, so no writer
    // can forget it and existing rows get theirs now.
    await queryRunner.query(`
      ALTER TABLE callback_deliveries ADD COLUMN target_origin TEXT NOT NULL GENERATED ALWAYS AS (
        COALESCE(regexp_replace(lower(substring(target_url FROM '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*')), '^(https://.*):443$|^(http://.*):80$', '\\1\\2'), target_url)
      ) STORED`);
    // The claim walks the origins that have pending rows (a loose index scan) and takes each
    // one's oldest due rows; leased rows per origin bound what is in flight there.
    await queryRunner.query(
      `CREATE INDEX callback_deliveries_pending_by_origin ON callback_deliveries (target_origin, next_attempt_at) WHERE status = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX callback_deliveries_leased_by_origin ON callback_deliveries (target_origin, lease_expires_at) WHERE lease_expires_at IS NOT NULL`,
    );
    // open_until: NULL closed; in the future open (nothing is sent); past half-open (one probe at a time).
    await queryRunner.query(`
      CREATE TABLE callback_origin_circuits (
        origin TEXT PRIMARY KEY,
        consecutive_failures INTEGER NOT NULL,
        open_until TIMESTAMPTZ,
        last_failure_at TIMESTAMPTZ
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE callback_origin_circuits`);
    await queryRunner.query(`DROP INDEX callback_deliveries_leased_by_origin`);
    await queryRunner.query(`DROP INDEX callback_deliveries_pending_by_origin`);
    await queryRunner.query(`ALTER TABLE callback_deliveries DROP COLUMN target_origin`);
  }
}
