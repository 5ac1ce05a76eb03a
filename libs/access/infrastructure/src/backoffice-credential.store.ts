import { createHash, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';

export type BackofficeRole = 'operator' | 'agent';

export interface BackofficePrincipal {
  credentialId: string;
  role: BackofficeRole;
  /** Set for agents: the id the payments service knows them by. */
  agentId: string | null;
  name: string;
}

export interface CreatedBackofficeCredential extends BackofficePrincipal {
  /** Shown once at creation, never again. */
  token: string;
}

const TOKEN_PATTERN = /^bo_[A-Za-z0-9_-]{43}$/;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Credentials of operators and payment agents: a role and a bearer token stored as its hash. */
export class BackofficeCredentialStore {
  constructor(private readonly dataSource: DataSource) {}

  async create(role: BackofficeRole, name: string): Promise<CreatedBackofficeCredential> {
    const credentialId = `cred_${randomBytes(12).toString('hex')}`;
    const agentId = role === 'agent' ? `agt_${randomBytes(12).toString('hex')}` : null;
    const token = `bo_${randomBytes(32).toString('base64url')}`;
    await this.dataSource.query(
      `INSERT INTO backoffice_credentials (credential_id, role, agent_id, name, token_sha256) VALUES ($1, $2, $3, $4, $5)`,
      [credentialId, role, agentId, name, sha256(token)],
    );
    return { credentialId, role, agentId, name, token };
  }

  /** The active principal a bearer token belongs to, or null. */
  async authenticate(token: string): Promise<BackofficePrincipal | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const rows: Array<{ credential_id: string; role: BackofficeRole; agent_id: string | null; name: string }> = await this.dataSource.query(
      `SELECT credential_id, role, agent_id, name FROM backoffice_credentials WHERE token_sha256 = $1 AND active`,
      [sha256(token)],
    );
    const row = rows[0];
    return row ? { credentialId: row.credential_id, role: row.role, agentId: row.agent_id, name: row.name } : null;
  }

  async deactivateAgent(agentId: string): Promise<void> {
    await this.dataSource.query(`UPDATE backoffice_credentials SET active = false WHERE agent_id = $1`, [agentId]);
  }
}
