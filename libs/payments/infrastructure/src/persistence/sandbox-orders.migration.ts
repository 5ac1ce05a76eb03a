import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sandbox agent (commands/sandbox-agent.ts) looks for pending test-mode orders on every
 * pass; this partial index holds only those, so the pass costs nothing while there are none
 * and never scans live orders. Its predicate is SANDBOX_PENDING_SQL, word for word, so the
 * planner can use it.
 */
export class SandboxOrders1700000032000 implements MigrationInterface {
  name = 'SandboxOrders1700000032000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS payment_orders_sandbox_pending ON payment_orders (list_position) WHERE status = 'PENDING' AND merchant_id LIKE 'test\\_%'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS payment_orders_sandbox_pending`);
  }
}
