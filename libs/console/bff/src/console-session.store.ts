import { randomBytes } from 'node:crypto';
import { storedCredentialHash as sha256 } from '@mp/access-domain';
import type { SecretBox } from '@mp/shared-util-secret-box';
import type { DataSource } from 'typeorm';

export type ConsoleRole = 'merchant' | 'agent' | 'operator';

/** Who a session is. */
export interface ConsoleIdentity {
  role: ConsoleRole;
  /** The merchant id, agent id or operator credential id. */
  subjectId: string;
  merchantId: string | null;
  consoleKeyId: string | null;
  /** The back-office credential id (agents and operators): the actor of their audit entries. */
  credentialId: string | null;
  displayName: string;
}

export interface ConsoleSession extends ConsoleIdentity {
  sessionSha256: string;
  csrfToken: string;
  /** When it ends if nothing else happens: the earlier of the idle and the absolute expiry. */
  expiresAt: Date;
}

export interface NewConsoleSession extends ConsoleIdentity {
  /** Agents and operators: their back-office token, sealed before it is stored. */
  bearerToken: string | null;
}

export interface SessionLifetime {
  idleMs: number;
  maxMs: number;
}

interface SessionRow {
  session_sha256: string;
  role: ConsoleRole;
  subject_id: string;
  merchant_id: string | null;
  console_key_id: string | null;
  credential_id: string | null;
  display_name: string;
  csrf_token: string;
  last_seen_at: Date;
  expires_at: Date;
}

const COLUMNS = 'session_sha256, role, subject_id, merchant_id, console_key_id, credential_id, display_name, csrf_token, last_seen_at, expires_at';
/** The sealed bearer is bound to its session row: copied to another row, it does not open. */
const bearerAssociatedData = (sessionSha256: string) => `console-session-bearer:${sessionSha256}`;

/**
 * Console sessions in the gateway database: only the SHA-256 of the cookie's value is kept, so
 * the table alone opens no session, and a bearer token only sealed with the gateway's key.
 */
/** How many ended sessions one sign-in deletes: more than sign-ins create, so the backlog shrinks. */
const EXPIRED_ROWS_PER_SIGN_IN = 100;

export class ConsoleSessionStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secretBox: SecretBox,
    private readonly lifetime: SessionLifetime,
  ) {}

  /** The cookie's value (256 random bits) goes to the browser and nowhere else. */
  async create(session: NewConsoleSession, now: Date): Promise<{ cookieValue: string; session: ConsoleSession }> {
    const cookieValue = randomBytes(32).toString('base64url');
    const sessionSha256 = sha256(cookieValue);
    const csrfToken = randomBytes(32).toString('base64url');
    const sealed = session.bearerToken === null ? null : this.secretBox.seal(session.bearerToken, bearerAssociatedData(sessionSha256));
    const absoluteEnd = new Date(now.getTime() + this.lifetime.maxMs);
    // Rows past their absolute end are of no use to anyone: each sign-in deletes up to a page of
    // them (by the expiry index), so the table holds at most a lifetime's worth of sessions
    // without a sweeper of its own, and no sign-in pays for more than that page.
    await this.dataSource.query(
      `DELETE FROM console_sessions WHERE session_sha256 IN (SELECT session_sha256 FROM console_sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT ${EXPIRED_ROWS_PER_SIGN_IN})`,
      [now],
    );
    await this.dataSource.query(
      `INSERT INTO console_sessions (session_sha256, role, subject_id, merchant_id, console_key_id, credential_id, display_name, csrf_token,
                                     bearer_key_version, bearer_iv, bearer_auth_tag, bearer_ciphertext, created_at, last_seen_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14)`,
      [
        sessionSha256,
        session.role,
        session.subjectId,
        session.merchantId,
        session.consoleKeyId,
        session.credentialId,
        session.displayName,
        csrfToken,
        sealed?.keyVersion ?? null,
        sealed?.iv ?? null,
        sealed?.authTag ?? null,
        sealed?.ciphertext ?? null,
        now,
        absoluteEnd,
      ],
    );
    return {
      cookieValue,
      session: {
        sessionSha256,
        role: session.role,
        subjectId: session.subjectId,
        merchantId: session.merchantId,
        consoleKeyId: session.consoleKeyId,
        credentialId: session.credentialId,
        displayName: session.displayName,
        csrfToken,
        expiresAt: this.endOf(now, absoluteEnd),
      },
    };
  }

  /**
   * The live session a cookie value opens, its idle clock restarted; null when unknown or over
   * (an expired row is deleted on the way).
   */
  async use(cookieValue: string, now: Date): Promise<ConsoleSession | null> {
    const sessionSha256 = sha256(cookieValue);
    const [rows]: [SessionRow[], number] = await this.dataSource.query(
      `UPDATE console_sessions SET last_seen_at = $2 WHERE session_sha256 = $1 AND last_seen_at > $3 AND expires_at > $2 RETURNING ${COLUMNS}`,
      [sessionSha256, now, new Date(now.getTime() - this.lifetime.idleMs)],
    );
    const row = rows[0];
    if (!row) {
      await this.end(sessionSha256);
      return null;
    }
    return {
      sessionSha256,
      role: row.role,
      subjectId: row.subject_id,
      merchantId: row.merchant_id,
      consoleKeyId: row.console_key_id,
      credentialId: row.credential_id,
      displayName: row.display_name,
      csrfToken: row.csrf_token,
      expiresAt: this.endOf(now, row.expires_at),
    };
  }

  /** The agent's or operator's bearer token, opened for one relayed call. */
  async bearerOf(session: ConsoleSession): Promise<string | null> {
    const rows: Array<{ bearer_key_version: number | null; bearer_iv: Buffer | null; bearer_auth_tag: Buffer | null; bearer_ciphertext: Buffer | null }> =
      await this.dataSource.query(`SELECT bearer_key_version, bearer_iv, bearer_auth_tag, bearer_ciphertext FROM console_sessions WHERE session_sha256 = $1`, [
        session.sessionSha256,
      ]);
    const row = rows[0];
    if (!row || row.bearer_key_version === null || !row.bearer_iv || !row.bearer_auth_tag || !row.bearer_ciphertext) return null;
    return this.secretBox.open(
      { keyVersion: row.bearer_key_version, iv: row.bearer_iv, authTag: row.bearer_auth_tag, ciphertext: row.bearer_ciphertext },
      bearerAssociatedData(session.sessionSha256),
    );
  }

  async end(sessionSha256: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM console_sessions WHERE session_sha256 = $1`, [sessionSha256]);
  }

  /** Sessions not over at `now` (the gauge's value). */
  async countActive(now: Date): Promise<number> {
    const rows: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) AS count FROM console_sessions WHERE expires_at > $1 AND last_seen_at > $2`,
      [now, new Date(now.getTime() - this.lifetime.idleMs)],
    );
    return Number(rows[0]?.count ?? 0);
  }

  private endOf(now: Date, absoluteEnd: Date): Date {
    return new Date(Math.min(now.getTime() + this.lifetime.idleMs, absoluteEnd.getTime()));
  }
}
