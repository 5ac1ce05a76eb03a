import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The withdrawals database besides the event store, outbox and inbox:
 * - `withdrawals`: the projection of each withdrawal stream (reads, lists, the sender's queue).
 *   `lease_until` is the sender's claim: a replica that claimed a withdrawal owns it until
 *   then, so replicas never send the same one at the same time, and a crashed replica's claim
 *   runs out and another resumes it;
 * - `simulated_network_sends`: the simulated network's own memory of the idempotency keys it
 *   has seen, so a resend with the same key returns the first result and never sends twice.
 *   A real network adapter would rely on the network's (or custodian's) idempotency instead.
 */
export class WithdrawalsSchema1700000005000 implements MigrationInterface {
  name = 'WithdrawalsSchema1700000005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE withdrawals (
        merchant_id TEXT NOT NULL,
        order_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('PENDING', 'COMPLETED', 'FAILED')),
        send_progress TEXT NOT NULL CHECK (send_progress IN ('queued', 'sending', 'finished')),
        send_attempts INTEGER NOT NULL DEFAULT 0,
        currency TEXT NOT NULL,
        network TEXT NOT NULL,
        balance_asset TEXT NOT NULL,
        amount_minor NUMERIC(40, 0) NOT NULL CHECK (amount_minor > 0),
        network_fee_minor NUMERIC(40, 0) NOT NULL CHECK (network_fee_minor >= 0),
        address TEXT NOT NULL,
        transaction_hash TEXT NULL,
        failure_reason TEXT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        stream_version INTEGER NOT NULL,
        lease_until TIMESTAMPTZ NULL,
        -- Creation order, for stable newest-first cursors.
        list_position BIGSERIAL NOT NULL UNIQUE,
        PRIMARY KEY (merchant_id, order_id)
      )`);
    await queryRunner.query(`CREATE INDEX withdrawals_merchant_list ON withdrawals (merchant_id, list_position DESC)`);
    await queryRunner.query(`CREATE INDEX withdrawals_to_send ON withdrawals (list_position) WHERE status = 'PENDING'`);
    await queryRunner.query(`
      CREATE TABLE simulated_network_sends (
        idempotency_key TEXT PRIMARY KEY,
        network TEXT NOT NULL,
        address TEXT NOT NULL,
        amount_minor NUMERIC(40, 0) NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('completed', 'failed')),
        transaction_hash TEXT NULL,
        failure_reason TEXT NULL,
        -- How many times the key was presented: more than 1 means a resend was answered from memory.
        requests INTEGER NOT NULL DEFAULT 1,
        first_sent_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE simulated_network_sends`);
    await queryRunner.query(`DROP TABLE withdrawals`);
  }
}
