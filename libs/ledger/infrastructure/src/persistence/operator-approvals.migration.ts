import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Four-eyes requests (operator-approval.ts in the domain): one row per conversion or deposit
 * adjustment above its threshold, the state of its approval and its audit trail (who asked,
 * who decided, when, why). At most one request per merchant and conversion or adjustment id,
 * so a retried request finds the one already waiting.
 */
export class LedgerOperatorApprovals1700000006000 implements MigrationInterface {
  name = 'LedgerOperatorApprovals1700000006000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ledger_operator_approvals (
        approval_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('conversion', 'deposit_adjustment')),
        merchant_id TEXT NOT NULL,
        subject_id TEXT NOT NULL,
        terms JSONB NOT NULL,
        requested_by TEXT NOT NULL CHECK (btrim(requested_by) <> ''),
        requested_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL CHECK (expires_at > requested_at),
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        decided_by TEXT,
        decided_at TIMESTAMPTZ,
        decision_reason TEXT,
        CHECK ((status = 'pending') = (decided_by IS NULL)),
        CHECK (decided_by IS NULL OR decided_by <> requested_by),
        UNIQUE (merchant_id, kind, subject_id)
      )`);
    await queryRunner.query(`CREATE INDEX ledger_operator_approvals_pending ON ledger_operator_approvals (requested_at) WHERE status = 'pending'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ledger_operator_approvals`);
  }
}
