import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A merchant's callback allow-list, set by an operator: the hosts (names, `*.` wildcards, IPs,
 * CIDRs) its callbacks may go to. No row, or an empty list: any host the global rules allow.
 */
export class GatewayCallbackAllowLists1700000020100 implements MigrationInterface {
  name = 'GatewayCallbackAllowLists1700000020100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE merchant_callback_allow_lists (
        merchant_id TEXT PRIMARY KEY REFERENCES merchants (merchant_id),
        entries TEXT[] NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_by TEXT NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE merchant_callback_allow_lists');
  }
}
