import { Client } from 'pg';
import type { MessageEnvelope } from '../envelope';
import type { MessageBroker } from '../messaging-port';
import { OUTBOX_NOTIFY_CHANNEL } from './outbox';

export interface OutboxRelayOptions {
  /** Used for a dedicated LISTEN connection; the pool's connections are never held for it. */
  connectionString: string;
  batchSize: number;
  /** Fallback poll when no notification arrives (lost connection, another replica's commit). */
  pollIntervalMs: number;
  /**
   * Topics whose messages may be dropped when the topic no longer exists: the reply topic of a
   * gateway replica that is gone. Its replies have nobody to read them, and publishing to a
   * missing topic would otherwise stall every message behind them.
   */
  isTransientTopic?: (topic: string) => boolean;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
}

// One relay per database publishes at a time, which keeps each key's messages in commit order
// even with several replicas of a service. The number is arbitrary but fixed (the previous
// release took it per transaction: a replica of each excludes the other during a rollout).
const RELAY_ADVISORY_LOCK_ID = 7_133_001;

interface OutboxRow {
  position: string;
  topic: string;
  message_key: string;
  envelope: MessageEnvelope;
}

/**
 * Moves committed outbox rows to the broker, at least once and in order, on one dedicated
 * connection that also listens for the outbox's wake-up. The replica whose connection holds the
 * session advisory lock is the one that relays; the others try it again on each poll.
 *
 * A published row is deleted, not marked (docs/decisions/one-round-trip-per-command.md): the
 * delete of one batch and the read of the next are one statement, sent only after the broker
 * acknowledged the batch. That statement waits for the next wake-up (a commit's notification, or
 * the poll) unless the batch was full: a quiet outbox costs one statement per commit, not a
 * second pass that deletes and finds nothing. A crash between publish and delete leaves the rows in place, and
 * whoever relays next publishes them again, in position order; every consumer's inbox absorbs
 * the repeat. Rows are deleted by their positions, never "up to a position": a transaction that
 * took a lower position may commit after a higher one was published.
 */
export class OutboxRelay {
  private running = false;
  private loop: Promise<void> | null = null;
  private connection: Promise<Client> | null = null;
  /** This relay's connection holds the advisory lock. */
  private leading = false;
  /** Positions the broker acknowledged and the outbox still holds: deleted by the next pass. */
  private published: string[] = [];
  private wake: (() => void) | null = null;
  /**
   * A notification came while no wait was pending (during a pass or a publish): the next wait
   * ends at once, since rows committed after the pass's read may be waiting.
   */
  private wakePending = false;
  /** Transient topics seen to exist; asked again after any failed publish. */
  private readonly knownTransientTopics = new Set<string>();

  constructor(
    private readonly broker: Pick<MessageBroker, 'publish' | 'existingTopics'>,
    private readonly options: OutboxRelayOptions,
  ) {}

  async start(): Promise<void> {
    this.running = true;
    await this.connect();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    // Publishing stopped: what was acknowledged is deleted, so a clean stop repeats nothing.
    if (this.leading && this.published.length > 0) await this.relayBatch(0).catch(() => undefined);
    const connection = this.connection;
    this.connection = null;
    this.leading = false;
    // Ending the session releases the advisory lock for another replica.
    await (await connection?.catch(() => null))?.end().catch(() => undefined);
  }

  /**
   * One pass: deletes what the last pass published, then reads and publishes the next batch
   * (at most `limit` rows); returns how many went out. Returns 0 while another replica relays.
   */
  async relayBatch(limit = this.options.batchSize): Promise<number> {
    // A notification from here on may be of a commit this pass's read does not see: it is kept
    // for the next wait.
    this.wakePending = false;
    const client = await this.connect();
    if (!this.leading) {
      const {
        rows: [{ locked }],
      } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock($1) AS locked`, [RELAY_ADVISORY_LOCK_ID]);
      if (!locked) return 0;
      this.leading = true;
      // Published by an earlier leader's pass or not, whatever is left in the outbox goes again.
      this.published = [];
    }
    // One statement: the delete and the read share its snapshot, so the read leaves out the
    // rows being deleted by itself.
    const { rows } = await client.query<OutboxRow>(
      `WITH deleted AS (DELETE FROM outbox WHERE position = ANY($1::bigint[]))
       SELECT position, topic, message_key, envelope FROM outbox WHERE position <> ALL($1::bigint[]) ORDER BY position LIMIT $2`,
      [this.published, limit],
    );
    this.published = [];
    if (rows.length === 0) return 0;
    const gone = await this.goneTransientTopics(rows.map((row) => row.topic));
    const deliverable = rows.filter((row) => !gone.has(row.topic));
    if (gone.size > 0)
      this.options.log('warn', `dropping ${rows.length - deliverable.length} message(s) to topics that no longer exist: ${[...gone].join(', ')}`);
    try {
      await this.broker.publish(deliverable.map((row) => ({ topic: row.topic, key: row.message_key, envelope: row.envelope })));
    } catch (error) {
      this.knownTransientTopics.clear();
      throw error;
    }
    this.published = rows.map((row) => row.position);
    return rows.length;
  }

  private async goneTransientTopics(topics: string[]): Promise<Set<string>> {
    const isTransient = this.options.isTransientTopic;
    if (!isTransient) return new Set();
    const unknown = [...new Set(topics)].filter((topic) => isTransient(topic) && !this.knownTransientTopics.has(topic));
    if (unknown.length === 0) return new Set();
    const existing = await this.broker.existingTopics(unknown);
    existing.forEach((topic) => this.knownTransientTopics.add(topic));
    return new Set(unknown.filter((topic) => !existing.has(topic)));
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        const published = await this.relayBatch();
        failures = 0;
        // Straight on after a full batch: more is waiting. After a partial one the outbox is
        // drained up to the read; the next commit's notification (or the poll) wakes the pass
        // that deletes this batch and reads what came, so a quiet outbox is one pass a commit.
        if (published >= this.options.batchSize) continue;
        await this.waitForWork(this.options.pollIntervalMs);
      } catch (error) {
        failures += 1;
        // The backoff is waited in full unless a notification comes during it.
        this.wakePending = false;
        const delayMs = Math.min(100 * 2 ** failures, 5_000);
        this.options.log('warn', `outbox relay failed (attempt ${failures}), retrying in ${delayMs} ms: ${String(error)}`);
        await this.waitForWork(delayMs);
      }
    }
  }

  private waitForWork(timeoutMs: number): Promise<void> {
    if (this.wakePending || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.wake = done;
    });
  }

  private wakeUp(): void {
    if (this.wake) this.wake();
    else this.wakePending = true;
  }

  /** The relay's own connection (LISTEN, the lock, the outbox), made again after it was lost. */
  private connect(): Promise<Client> {
    this.connection ??= this.openConnection().catch((error: unknown) => {
      this.connection = null;
      throw error;
    });
    return this.connection;
  }

  private async openConnection(): Promise<Client> {
    const client = new Client({ connectionString: this.options.connectionString });
    client.on('notification', () => this.wakeUp());
    client.on('error', (error) => {
      // The session and its lock are gone: what was published and not deleted goes again.
      this.options.log('warn', `outbox relay connection lost: ${String(error)}`);
      this.connection = null;
      this.leading = false;
      this.published = [];
      this.wakeUp();
    });
    await client.connect();
    // Deleting published rows needs no synchronous commit: if a crash loses the delete, the rows
    // are published again, which every consumer's inbox absorbs. This saves a WAL flush per pass.
    await client.query(`SET synchronous_commit = off; LISTEN ${OUTBOX_NOTIFY_CHANNEL}`);
    return client;
  }
}
