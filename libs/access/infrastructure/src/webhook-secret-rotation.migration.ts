import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook secret rotation: the previous secret (still AES-256-GCM ciphertext) stays beside the
 * current one until `previous_valid_until`, so callbacks are signed with both during the
 * overlap and receivers can switch secrets without dropping any.
 */
export class AccessWebhookSecretRotation1700000004500 implements MigrationInterface {
  name = 'AccessWebhookSecretRotation1700000004500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE merchant_secrets
        ADD COLUMN previous_key_version INTEGER,
        ADD COLUMN previous_iv BYTEA,
        ADD COLUMN previous_auth_tag BYTEA,
        ADD COLUMN previous_ciphertext BYTEA,
        ADD COLUMN previous_valid_until TIMESTAMPTZ,
        ADD CONSTRAINT merchant_secrets_previous_complete CHECK (
          (previous_ciphertext IS NULL) = (previous_valid_until IS NULL) AND (previous_ciphertext IS NULL) = (previous_iv IS NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE merchant_secrets DROP CONSTRAINT merchant_secrets_previous_complete,
        DROP COLUMN previous_key_version, DROP COLUMN previous_iv, DROP COLUMN previous_auth_tag, DROP COLUMN previous_ciphertext, DROP COLUMN previous_valid_until`);
  }
}
