import { randomBytes } from 'node:crypto';
import {
  checkBackofficeCredential,
  credentialExpiry,
  credentialState,
  type CredentialState,
  DEFAULT_AGENT_CREDENTIAL_LIFETIME_DAYS,
  DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS,
  storedCredentialHash as sha256,
} from '@mp/access-domain';
import type { DataSource, EntityManager } from 'typeorm';

export type BackofficeRole = 'operator' | 'agent';

export interface BackofficePrincipal {
  credentialId: string;
  role: BackofficeRole;
  /** Set for agents: the id the payments service knows them by. */
  agentId: string | null;
  /**
   * Set for operators: the person the credential belongs to (`op_…`). Every credential of one
   * operator has the same id, and the four-eyes rule compares these, never credential ids.
   */
  operatorId: string | null;
  /** Operators only: who issued this credential, then who issued theirs, oldest first (operator ids). */
  issuerChain: string[];
  /** Operators only: may issue operator credentials (the bootstrap operator, and whom it empowers). */
  mayIssueOperators: boolean;
  name: string;
  /** When the token stops working (every credential expires; rows from before agents expired may be null). */
  expiresAt: Date | null;
}

export interface CreatedBackofficeCredential extends BackofficePrincipal {
  /** Shown once at creation, never again. */
  token: string;
}

export interface CreateCredentialOptions {
  expiresAt?: Date | null;
  issuer?: BackofficePrincipal | null;
  mayIssueOperators?: boolean;
  /** The transaction to write in (the bootstrap command's, under its lock); the data source's manager otherwise. */
  manager?: EntityManager;
}

/**
 * A credential issued within a cap on live ones: an operator's on the operator credentials he
 * issued (OPERATOR_LIVE_CREDENTIALS_MAX), an agent's on its own (AGENT_LIVE_CREDENTIALS_MAX).
 */
export type IssueResult = { kind: 'issued'; credential: CreatedBackofficeCredential } | { kind: 'limit_reached'; live: number } | { kind: 'not_found' };

/** A credential as operators list it: never its token, nor the token's hash. */
export interface BackofficeCredentialView {
  credential_id: string;
  role: BackofficeRole;
  operator_id: string | null;
  may_issue_operator_credentials: boolean;
  name: string;
  agent_id: string | null;
  created_at: string;
  created_by: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  revoked_by: string | null;
  /** `deactivated`: an agent's credential ended with its profile (no revocation, no expiry). */
  state: CredentialState | 'deactivated';
}

export type BackofficeAuthentication =
  { ok: true; principal: BackofficePrincipal } | { ok: false; code: 'INVALID_API_KEY' | 'CREDENTIAL_EXPIRED' | 'CREDENTIAL_REVOKED' };

export type RevokeResult =
  { kind: 'revoked'; credential: BackofficeCredentialView } | { kind: 'already_revoked'; credential: BackofficeCredentialView } | { kind: 'not_found' };

/** What the bootstrap command did: made the first operator, or refused because operators exist. */
export type BootstrapOperatorResult =
  { kind: 'created'; operator: CreatedBackofficeCredential; operatorsBefore: number } | { kind: 'refused'; operators: number };

/** pg_advisory_xact_lock key of the bootstrap command (any constant no other code takes). */
const BOOTSTRAP_OPERATOR_LOCK = 7_301_535_001;

const TOKEN_PATTERN = /^bo_[A-Za-z0-9_-]{43}$/;
export const BACKOFFICE_CREDENTIAL_ID_PATTERN = /^cred_[0-9a-f]{24}$/;

interface CredentialRow {
  credential_id: string;
  role: BackofficeRole;
  agent_id: string | null;
  operator_id: string | null;
  issuer_chain: string[];
  may_issue_operators: boolean;
  name: string;
  active: boolean;
  created_at: Date;
  created_by: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
}

const VIEW_COLUMNS =
  'credential_id, role, agent_id, operator_id, issuer_chain, may_issue_operators, name, active, created_at, created_by, expires_at, revoked_at, revoked_by';

function viewOf(row: CredentialRow, now: Date): BackofficeCredentialView {
  return {
    credential_id: row.credential_id,
    role: row.role,
    operator_id: row.operator_id,
    may_issue_operator_credentials: row.may_issue_operators,
    name: row.name,
    agent_id: row.agent_id,
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
    expires_at: row.expires_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    revoked_by: row.revoked_by,
    state: !row.active && row.revoked_at === null ? 'deactivated' : credentialState({ expiresAt: row.expires_at, revokedAt: row.revoked_at }, now),
  };
}

function principalOf(row: CredentialRow): BackofficePrincipal {
  return {
    credentialId: row.credential_id,
    role: row.role,
    agentId: row.agent_id,
    operatorId: row.operator_id,
    issuerChain: row.issuer_chain ?? [],
    mayIssueOperators: row.may_issue_operators,
    name: row.name,
    expiresAt: row.expires_at,
  };
}

/** Live at `now`: neither deactivated, revoked nor expired (the SQL twin of checkBackofficeCredential). */
const LIVE = `active AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`;

/** Credentials of operators and payment agents: a role and a bearer token stored as its hash. */
export class BackofficeCredentialStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Every credential expires: operators by default DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS from
   * now, agents DEFAULT_AGENT_CREDENTIAL_LIFETIME_DAYS. A new operator credential is a new operator
   * (`op_…`), whose issuer chain is the issuer's own chain and the issuer; without an issuer (the
   * bootstrap command) the chain is empty. Only `mayIssueOperators` lets the new operator issue
   * operator credentials in turn. No cap on live credentials: the bootstrap path and new agents.
   */
  async create(role: BackofficeRole, name: string, options: CreateCredentialOptions = {}): Promise<CreatedBackofficeCredential> {
    return this.insert(options.manager ?? this.dataSource.manager, role, name, role === 'agent' ? `agt_${randomBytes(12).toString('hex')}` : null, options);
  }

  /**
   * An operator credential issued by `options.issuer`, refused while he already has `liveMax`
   * live ones he issued. Issuances by one operator are serialized (a transaction-scoped advisory
   * lock on his operator id), so two at once cannot both pass the count.
   */
  async issueOperator(name: string, options: CreateCredentialOptions & { issuer: BackofficePrincipal; liveMax: number; now: Date }): Promise<IssueResult> {
    const issuerId = options.issuer.operatorId;
    if (issuerId === null) throw new Error('invariant: only an operator issues operator credentials');
    return this.issueWithinCap(
      `issuer:${issuerId}`,
      options.liveMax,
      async (manager) => {
        const [row]: Array<{ live: number }> = await manager.query(
          `SELECT count(*)::int AS live FROM backoffice_credentials WHERE role = 'operator' AND issuer_chain[cardinality(issuer_chain)] = $1 AND ${LIVE}`,
          [issuerId, options.now],
        );
        return row?.live ?? 0;
      },
      (manager) => this.insert(manager, 'operator', name, null, options),
    );
  }

  /**
   * A further credential for an existing agent (a renewal): its other credentials keep working
   * until they expire or are revoked, so the agent switches over without a gap. Refused while the
   * agent holds `liveMax` live ones; not found when no credential was ever issued to `agentId`.
   */
  async issueAgent(agentId: string, name: string, options: CreateCredentialOptions & { liveMax: number; now: Date }): Promise<IssueResult> {
    return this.issueWithinCap(
      `agent:${agentId}`,
      options.liveMax,
      async (manager) => {
        const [row]: Array<{ known: boolean; live: number }> = await manager.query(
          `SELECT count(*) > 0 AS known, (count(*) FILTER (WHERE ${LIVE}))::int AS live FROM backoffice_credentials WHERE agent_id = $1`,
          [agentId, options.now],
        );
        return row?.known ? row.live : null;
      },
      (manager) => this.insert(manager, 'agent', name, agentId, options),
    );
  }

  private async issueWithinCap(
    lockKey: string,
    liveMax: number,
    countLive: (manager: EntityManager) => Promise<number | null>,
    insert: (manager: EntityManager) => Promise<CreatedBackofficeCredential>,
  ): Promise<IssueResult> {
    return this.dataSource.transaction(async (manager): Promise<IssueResult> => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`backoffice-credentials:${lockKey}`]);
      const live = await countLive(manager);
      if (live === null) return { kind: 'not_found' };
      if (live >= liveMax) return { kind: 'limit_reached', live };
      return { kind: 'issued', credential: await insert(manager) };
    });
  }

  private async insert(
    manager: EntityManager,
    role: BackofficeRole,
    name: string,
    agentId: string | null,
    options: CreateCredentialOptions,
  ): Promise<CreatedBackofficeCredential> {
    const credentialId = `cred_${randomBytes(12).toString('hex')}`;
    const operatorId = role === 'operator' ? `op_${randomBytes(12).toString('hex')}` : null;
    const issuer = options.issuer ?? null;
    const issuerChain = role === 'operator' && issuer?.operatorId ? [...issuer.issuerChain, issuer.operatorId] : [];
    const mayIssueOperators = role === 'operator' && (options.mayIssueOperators ?? false);
    const token = `bo_${randomBytes(32).toString('base64url')}`;
    const defaultDays = role === 'operator' ? DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS : DEFAULT_AGENT_CREDENTIAL_LIFETIME_DAYS;
    const expiresAt = options.expiresAt ?? credentialExpiry(new Date(), defaultDays);
    await manager.query(
      `INSERT INTO backoffice_credentials (credential_id, role, agent_id, operator_id, issuer_chain, may_issue_operators, name, token_sha256, expires_at, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [credentialId, role, agentId, operatorId, issuerChain, mayIssueOperators, name, sha256(token), expiresAt, issuer?.credentialId ?? null],
    );
    return { credentialId, role, agentId, operatorId, issuerChain, mayIssueOperators, name, token, expiresAt };
  }

  /**
   * The deployment's first operator (docs/operations/operators.md), who may issue operator
   * credentials: made only while no operator exists, unless `force` (every operator locked out).
   * `deliver` hands the credential over (prints it, or writes it where the operator collects it)
   * before the row is committed, so a credential that could not be delivered leaves no operator
   * behind and a rerun is not refused. Two runs at once (a retried Job) take turns on an advisory
   * lock, so only one of them sees an empty table.
   */
  async createBootstrapOperator(
    name: string,
    options: { expiresAt: Date; force: boolean; deliver: (operator: CreatedBackofficeCredential) => Promise<void> },
  ): Promise<BootstrapOperatorResult> {
    return this.dataSource.transaction(async (manager): Promise<BootstrapOperatorResult> => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_OPERATOR_LOCK]);
      const [{ operators }]: Array<{ operators: number }> = await manager.query(
        `SELECT count(DISTINCT operator_id)::int AS operators FROM backoffice_credentials WHERE role = 'operator'`,
      );
      if (operators > 0 && !options.force) return { kind: 'refused', operators };
      const operator = await this.create('operator', name, { expiresAt: options.expiresAt, mayIssueOperators: true, manager });
      await options.deliver(operator);
      return { kind: 'created', operator, operatorsBefore: operators };
    });
  }

  /**
   * Who a bearer token belongs to, or why it no longer works. An expired or revoked token is
   * named as such (its holder knows the token, so this tells them nothing new); an unknown or
   * deactivated one is INVALID_API_KEY.
   */
  async authenticate(token: string, now = new Date()): Promise<BackofficeAuthentication> {
    if (!TOKEN_PATTERN.test(token)) return { ok: false, code: 'INVALID_API_KEY' };
    const rows: CredentialRow[] = await this.dataSource.query(`SELECT ${VIEW_COLUMNS} FROM backoffice_credentials WHERE token_sha256 = $1`, [sha256(token)]);
    const row = rows[0];
    if (!row || (!row.active && row.revoked_at === null)) return { ok: false, code: 'INVALID_API_KEY' };
    const check = checkBackofficeCredential({ expiresAt: row.expires_at, revokedAt: row.revoked_at }, now);
    if (!check.ok) return check;
    return { ok: true, principal: principalOf(row) };
  }

  /**
   * The operators who are not a second pair of eyes for `operator`: those up the chain that issued
   * his credential, and those whose credentials he (or anyone he issued) made. An approval by him
   * of a request of theirs, or theirs of his, is refused (the ledger's four-eyes rule).
   */
  async relatedOperators(operator: BackofficePrincipal): Promise<string[]> {
    if (operator.operatorId === null) return [];
    const issued: Array<{ operator_id: string }> = await this.dataSource.query(
      `SELECT DISTINCT operator_id FROM backoffice_credentials WHERE role = 'operator' AND $1 = ANY(issuer_chain) ORDER BY operator_id`,
      [operator.operatorId],
    );
    return [...new Set([...operator.issuerChain, ...issued.map((row) => row.operator_id)])];
  }

  /** Every credential of a role, newest first; never a token. */
  async list(role: BackofficeRole, now = new Date()): Promise<BackofficeCredentialView[]> {
    const rows: CredentialRow[] = await this.dataSource.query(
      `SELECT ${VIEW_COLUMNS} FROM backoffice_credentials WHERE role = $1 ORDER BY created_at DESC, credential_id`,
      [role],
    );
    return rows.map((row) => viewOf(row, now));
  }

  /** One agent's credentials, newest first, with their expiry and state; never a token. */
  async listForAgent(agentId: string, now = new Date()): Promise<BackofficeCredentialView[]> {
    const rows: CredentialRow[] = await this.dataSource.query(
      `SELECT ${VIEW_COLUMNS} FROM backoffice_credentials WHERE agent_id = $1 ORDER BY created_at DESC, credential_id`,
      [agentId],
    );
    return rows.map((row) => viewOf(row, now));
  }

  /** Revokes at once and for good; revoking again changes nothing and says so. */
  async revoke(credentialId: string, revokedBy: string, now = new Date()): Promise<RevokeResult> {
    return this.dataSource.transaction(async (manager): Promise<RevokeResult> => {
      const rows: CredentialRow[] = await manager.query(`SELECT ${VIEW_COLUMNS} FROM backoffice_credentials WHERE credential_id = $1 FOR UPDATE`, [
        credentialId,
      ]);
      const row = rows[0];
      if (!row) return { kind: 'not_found' };
      if (row.revoked_at !== null) return { kind: 'already_revoked', credential: viewOf(row, now) };
      const [updated]: [CredentialRow[], number] = await manager.query(
        `UPDATE backoffice_credentials SET active = false, revoked_at = $2, revoked_by = $3 WHERE credential_id = $1 RETURNING ${VIEW_COLUMNS}`,
        [credentialId, now, revokedBy],
      );
      return { kind: 'revoked', credential: viewOf(updated[0] as CredentialRow, now) };
    });
  }

  async deactivateAgent(agentId: string): Promise<void> {
    await this.dataSource.query(`UPDATE backoffice_credentials SET active = false WHERE agent_id = $1`, [agentId]);
  }
}

/** What the audit trail keeps of an issuance: what was issued, for whom, by which operator, until when. */
export function issuanceAuditDetails(credential: CreatedBackofficeCredential, issuer: BackofficePrincipal | null): Record<string, unknown> {
  return {
    issued_credential_id: credential.credentialId,
    role: credential.role,
    operator_id: credential.operatorId,
    agent_id: credential.agentId,
    issued_by_operator_id: issuer?.operatorId ?? null,
    expires_at: credential.expiresAt?.toISOString() ?? null,
  };
}
