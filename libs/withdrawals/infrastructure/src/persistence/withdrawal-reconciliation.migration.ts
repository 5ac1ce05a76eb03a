import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reconciliation and late network results (issue 17):
 * - `withdrawals.reconciliation`: the evidence of an operator's reconciliation (what the network
 *   said, when, who asked), for the back office; the event store keeps it too;
 * - `withdrawal_late_network_results`: the dead letters, one row per network result that arrived
 *   after its withdrawal had finished (`contradicts`: it says the opposite of the outcome);
 * - `withdrawal_metric_counters`: monotonic counters by metric name and Prometheus label text,
 *   bumped in the transaction that records what they count, so a later Prometheus exporter
 *   reads them as counters (there is no metrics library in the services yet);
 * - `simulated_network_sends` learns `dropped`: a key a reconciliation looked up before any send
 *   reached the simulator, refused from then on (no network, address or amount: none was sent).
 */
export class WithdrawalReconciliation1700000005100 implements MigrationInterface {
  name = 'WithdrawalReconciliation1700000005100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE withdrawals ADD COLUMN reconciliation JSONB NULL`);
    await queryRunner.query(`
      CREATE TABLE withdrawal_late_network_results (
        id BIGSERIAL PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        order_id TEXT NOT NULL,
        -- The event that recorded it, in the withdrawal's stream.
        stream_version INTEGER NOT NULL,
        status_at_arrival TEXT NOT NULL CHECK (status_at_arrival IN ('COMPLETED', 'FAILED')),
        outcome TEXT NOT NULL CHECK (outcome IN ('completed', 'failed')),
        transaction_hash TEXT NULL,
        failure_reason TEXT NULL,
        contradicts BOOLEAN NOT NULL,
        received_at TIMESTAMPTZ NOT NULL,
        UNIQUE (merchant_id, order_id, stream_version)
      )`);
    await queryRunner.query(`CREATE INDEX withdrawal_late_network_results_contradicting ON withdrawal_late_network_results (received_at) WHERE contradicts`);
    await queryRunner.query(`
      CREATE TABLE withdrawal_metric_counters (
        metric TEXT NOT NULL,
        -- Prometheus label text, e.g. outcome="completed",contradicts="true"; '' for none.
        labels TEXT NOT NULL DEFAULT '',
        value BIGINT NOT NULL DEFAULT 0 CHECK (value >= 0),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (metric, labels)
      )`);
    await queryRunner.query(`ALTER TABLE simulated_network_sends DROP CONSTRAINT simulated_network_sends_outcome_check`);
    await queryRunner.query(
      `ALTER TABLE simulated_network_sends ADD CONSTRAINT simulated_network_sends_outcome_check CHECK (outcome IN ('completed', 'failed', 'dropped'))`,
    );
    for (const column of ['network', 'address', 'amount_minor'])
      await queryRunner.query(`ALTER TABLE simulated_network_sends ALTER COLUMN ${column} DROP NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM simulated_network_sends WHERE outcome = 'dropped'`);
    for (const column of ['network', 'address', 'amount_minor'])
      await queryRunner.query(`ALTER TABLE simulated_network_sends ALTER COLUMN ${column} SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE simulated_network_sends DROP CONSTRAINT simulated_network_sends_outcome_check`);
    await queryRunner.query(
      `ALTER TABLE simulated_network_sends ADD CONSTRAINT simulated_network_sends_outcome_check CHECK (outcome IN ('completed', 'failed'))`,
    );
    await queryRunner.query(`DROP TABLE withdrawal_metric_counters`);
    await queryRunner.query(`DROP TABLE withdrawal_late_network_results`);
    await queryRunner.query(`ALTER TABLE withdrawals DROP COLUMN reconciliation`);
  }
}
