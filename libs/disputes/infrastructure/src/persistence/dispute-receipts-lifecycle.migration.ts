import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 17: a receipt is kept only with an accepted open. `dispute_id` says which dispute's
 * current evidence holds it (NULL while its open is in flight: those rows are the sweep's
 * candidates once older than the grace period). Receipts of today's disputes are attached from
 * the event store (the last open or reopen of each stream names its receipt); every other
 * existing row was left by a rejected or failed open, or replaced by a reopen, and is removed.
 * `dispute_receipt_downloads` logs who downloaded which receipt, and when.
 */
export class DisputeReceiptsLifecycle1700000013000 implements MigrationInterface {
  name = 'DisputeReceiptsLifecycle1700000013000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE dispute_receipts ADD COLUMN dispute_id TEXT`);
    await queryRunner.query(`
      UPDATE dispute_receipts r SET dispute_id = current.dispute_id
        FROM (SELECT DISTINCT ON (stream_id) envelope->'data'->>'disputeId' AS dispute_id, envelope->'data'->'receipt'->>'receiptId' AS receipt_id
                FROM event_store WHERE event_type IN ('DisputeOpened', 'DisputeReopened')
               ORDER BY stream_id, stream_version DESC) current
       WHERE r.receipt_id = current.receipt_id`);
    // Younger unattached rows may belong to an open in flight right now: the sweep takes them later.
    await queryRunner.query(`DELETE FROM dispute_receipts WHERE dispute_id IS NULL AND stored_at < now() - interval '1 hour'`);
    await queryRunner.query(`CREATE INDEX dispute_receipts_unattached ON dispute_receipts (stored_at) WHERE dispute_id IS NULL`);
    await queryRunner.query(`
      CREATE TABLE dispute_receipt_downloads (
        download_id BIGSERIAL PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        dispute_id TEXT NOT NULL,
        order_id TEXT NOT NULL,
        receipt_id TEXT NOT NULL,
        file_name TEXT NOT NULL,
        reviewer_role TEXT NOT NULL,
        reviewer_id TEXT NOT NULL,
        downloaded_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX dispute_receipt_downloads_dispute ON dispute_receipt_downloads (merchant_id, dispute_id, download_id DESC)`);
    await queryRunner.query(`CREATE INDEX dispute_receipt_downloads_reviewer ON dispute_receipt_downloads (reviewer_id, download_id DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE dispute_receipt_downloads`);
    await queryRunner.query(`DROP INDEX dispute_receipts_unattached`);
    await queryRunner.query(`ALTER TABLE dispute_receipts DROP COLUMN dispute_id`);
  }
}
