import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sandbox reviewer (commands/sandbox-reviewer.ts) looks for open test-mode disputes every
 * second; this partial index holds only those, so the look costs nothing while there are none.
 */
export class SandboxDisputes1700000032300 implements MigrationInterface {
  name = 'SandboxDisputes1700000032300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS disputes_sandbox_open ON disputes (list_position) WHERE status = 'OPEN' AND merchant_id LIKE 'test\\_%'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS disputes_sandbox_open`);
  }
}
