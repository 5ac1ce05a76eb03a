import { addListPosition } from '@mp/shared-data-access-postgres';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24: operators page through agents (`GET /backoffice/v1/agents`), newest first with the
 * API's cursors, which need a position that only grows. Existing agents get theirs in the order
 * of their agent ids (the table never recorded when an agent was registered).
 */
export class PaymentAgentList1700000033200 implements MigrationInterface {
  name = 'PaymentAgentList1700000033200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addListPosition(queryRunner, 'payment_agents', 'agent_id');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payment_agents DROP COLUMN list_position`);
  }
}
