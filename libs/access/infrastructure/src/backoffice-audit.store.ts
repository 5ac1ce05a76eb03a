import type { DataSource } from 'typeorm';
import type { BackofficePrincipal } from './backoffice-credential.store';

/** One back-office action as the trail keeps it: the actor comes from the verified credential, never a body. */
export interface BackofficeAuditEntry {
  audit_id: string;
  occurred_at: string;
  actor_credential_id: string;
  actor_role: string;
  actor_name: string;
  /** `METHOD route`, e.g. `POST /backoffice/v1/merchants/:merchantId/suspend`. */
  action: string;
  path: string;
  merchant_id: string | null;
  status_code: number;
  error_code: string | null;
  reason: string | null;
  /** What the action made, for whom and until when: e.g. an issued credential's id, holder and expiry. */
  details: Record<string, unknown> | null;
}

export interface BackofficeAuditFilter {
  actorCredentialId?: string;
  merchantId?: string;
  /** Entries older than this audit id (the previous page's last). */
  beforeAuditId?: string;
  limit: number;
}

export interface BackofficeAuditRecord {
  /**
   * Who acted: the credential, its role and its holder's name (an operator's other fields are not
   * audited here); the bootstrap command, which has no credential, names itself with role `command`.
   */
  principal: { credentialId: string; role: BackofficePrincipal['role'] | 'command'; name: string };
  action: string;
  path: string;
  merchantId: string | null;
  statusCode: number;
  errorCode: string | null;
  reason: string | null;
  details?: Record<string, unknown> | null;
  occurredAt: Date;
}

type AuditRow = Omit<BackofficeAuditEntry, 'occurred_at' | 'audit_id'> & { audit_id: string; occurred_at: Date };

/** The append-only trail of back-office actions. */
export class BackofficeAuditStore {
  constructor(private readonly dataSource: DataSource) {}

  async record(entry: BackofficeAuditRecord): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO backoffice_audit (occurred_at, actor_credential_id, actor_role, actor_name, action, path, merchant_id, status_code, error_code, reason, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        entry.occurredAt,
        entry.principal.credentialId,
        entry.principal.role,
        entry.principal.name,
        entry.action,
        entry.path,
        entry.merchantId,
        entry.statusCode,
        entry.errorCode,
        entry.reason,
        entry.details ? JSON.stringify(entry.details) : null,
      ],
    );
  }

  /** Newest first. */
  async list(filter: BackofficeAuditFilter): Promise<BackofficeAuditEntry[]> {
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT audit_id::text AS audit_id, occurred_at, actor_credential_id, actor_role, actor_name, action, path, merchant_id, status_code, error_code, reason, details
         FROM backoffice_audit
        WHERE ($1::text IS NULL OR actor_credential_id = $1) AND ($2::text IS NULL OR merchant_id = $2) AND ($3::bigint IS NULL OR audit_id < $3::bigint)
        ORDER BY audit_id DESC
        LIMIT $4`,
      [filter.actorCredentialId ?? null, filter.merchantId ?? null, filter.beforeAuditId ?? null, filter.limit],
    );
    return rows.map((row) => ({ ...row, occurred_at: row.occurred_at.toISOString() }));
  }
}
