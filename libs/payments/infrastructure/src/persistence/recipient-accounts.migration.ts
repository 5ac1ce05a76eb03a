import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Recipient account numbers leave the projection (and, with the matching event schema, the
 * event store and Kafka): the full number is kept encrypted in `payout_recipient_accounts`, the
 * order keeps its reference and last four characters. Payer-page tokens are no longer stored
 * at all, only their SHA-256. Every reveal of a full number to an agent is recorded.
 */
export class PayoutRecipientAccounts1700000008000 implements MigrationInterface {
  name = 'PayoutRecipientAccounts1700000008000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE payment_orders
        DROP COLUMN account_number,
        DROP COLUMN payer_page_token,
        ADD COLUMN recipient_account_ref TEXT,
        ADD COLUMN account_number_last4 TEXT,
        ADD COLUMN payer_page_token_hash TEXT UNIQUE`);
    await queryRunner.query(`
      CREATE TABLE payout_recipient_accounts (
        reference TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        last4 TEXT NOT NULL,
        -- AES-256-GCM under the payments master key's 'payout-recipient-account' key, bound to
        -- the merchant and reference as associated data.
        key_version INTEGER NOT NULL,
        iv BYTEA NOT NULL,
        auth_tag BYTEA NOT NULL,
        ciphertext BYTEA NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE account_number_reveals (
        reveal_id BIGSERIAL PRIMARY KEY,
        agent_id TEXT NOT NULL,
        merchant_id TEXT NOT NULL,
        order_id TEXT NOT NULL,
        recipient_account_ref TEXT NOT NULL REFERENCES payout_recipient_accounts (reference),
        revealed_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX account_number_reveals_order ON account_number_reveals (merchant_id, order_id, reveal_id DESC)`);
    await queryRunner.query(`CREATE INDEX account_number_reveals_agent ON account_number_reveals (agent_id, reveal_id DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE account_number_reveals`);
    await queryRunner.query(`DROP TABLE payout_recipient_accounts`);
    await queryRunner.query(`
      ALTER TABLE payment_orders
        DROP COLUMN payer_page_token_hash,
        DROP COLUMN account_number_last4,
        DROP COLUMN recipient_account_ref,
        ADD COLUMN account_number TEXT,
        ADD COLUMN payer_page_token TEXT UNIQUE`);
  }
}
