import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';

/** Expired rows removed by one prune: a bounded statement, whatever the table's size. */
const PRUNE_BATCH = 500;
/** One recorded signature in this many also prunes: the table holds about five minutes of them. */
const PRUNE_EVERY = 64;

/** What is kept of a signature: its SHA-256, never the signature itself. */
const digestOf = (signature: string): Buffer => createHash('sha256').update(signature.toLowerCase()).digest();

/**
 * The signatures already used for requests that change something, while their timestamp is in
 * the window (AccessRequestSignatures1700000050100). Why not a cache in each gateway: replicas
 * behind a load balancer would each accept the replay once; the database they share sees both.
 */
export class RequestSignatureStore {
  private recorded = 0;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records the signature; true the first time, false when it was used before (a replay). One
   * statement: the primary key decides, so two replays racing on two replicas cannot both pass.
   */
  async firstUse(merchantId: string, signature: string, expiresAt: Date): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO merchant_request_signatures (merchant_id, signature_sha256, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (merchant_id, signature_sha256) DO NOTHING RETURNING 1`,
      [merchantId, digestOf(signature), expiresAt],
    );
    this.recorded += 1;
    // Pruning rides along now and then, off the request's path: no timer, no extra process, and
    // a failed prune only leaves rows for the next one.
    if (this.recorded % PRUNE_EVERY === 0) void this.pruneExpired(new Date()).catch(() => undefined);
    return rows.length === 1;
  }

  /**
   * Forgets a signature whose request was refused (4xx, 5xx): it changed nothing, so sending it
   * again (the client fixed the cause, or retries a 503) is no replay of a change.
   */
  async release(merchantId: string, signature: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM merchant_request_signatures WHERE merchant_id = $1 AND signature_sha256 = $2`, [merchantId, digestOf(signature)]);
  }

  /** Deletes up to PRUNE_BATCH signatures whose timestamp left the window; how many it deleted. */
  async pruneExpired(now: Date): Promise<number> {
    const [, deleted]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM merchant_request_signatures WHERE ctid IN (SELECT ctid FROM merchant_request_signatures WHERE expires_at < $1 LIMIT ${PRUNE_BATCH})`,
      [now],
    );
    return deleted;
  }
}
