import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the orphan-hold sweeper needs on `ledger_holds`:
 * - `attached_at`: when the ledger learnt the order behind a payout hold exists (its
 *   OutgoingPaymentCreated event, or the payments service answering for it);
 * - `last_requested_at`: the latest time a service asked for the hold, first placement or a
 *   retry: the grace period runs from here, so a retry in progress is never swept.
 * Holds that existed before this migration are treated as attached: nothing old is voided by
 * surprise.
 */
export class LedgerOrphanHolds1700000003000 implements MigrationInterface {
  name = 'LedgerOrphanHolds1700000003000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE ledger_holds
        ADD COLUMN attached_at TIMESTAMPTZ NULL,
        ADD COLUMN last_requested_at TIMESTAMPTZ NOT NULL DEFAULT now();
      UPDATE ledger_holds SET attached_at = created_at, last_requested_at = created_at;
      CREATE INDEX ledger_holds_unattached ON ledger_holds (last_requested_at)
        WHERE status = 'pending' AND attached_at IS NULL;
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX ledger_holds_unattached;
      ALTER TABLE ledger_holds DROP COLUMN attached_at, DROP COLUMN last_requested_at;
    `);
  }
}
