import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The signatures of merchants' requests that change something (docs/api/authentication.md,
 * "Replays"), kept while their timestamp could still pass the 300-second window, so a captured
 * request cannot be sent a second time. Keyed by merchant and the SHA-256 of the signature;
 * `expires_at` is when the signed timestamp leaves the window, after which the row is pruned.
 */
export class AccessRequestSignatures1700000050100 implements MigrationInterface {
  name = 'AccessRequestSignatures1700000050100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE merchant_request_signatures (
        merchant_id TEXT NOT NULL,
        signature_sha256 BYTEA NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (merchant_id, signature_sha256)
      )`);
    await queryRunner.query(`CREATE INDEX merchant_request_signatures_expiry ON merchant_request_signatures (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE merchant_request_signatures`);
  }
}
