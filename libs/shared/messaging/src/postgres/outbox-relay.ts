import { Client } from 'pg';
import type { DataSource } from 'typeorm';
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
// even with several replicas of a service. The number is arbitrary but fixed.
const RELAY_ADVISORY_LOCK_ID = 7_133_001;

/**
 * Moves committed outbox rows to the broker, at least once and in order. A crash between
 * publish and marking the rows published republishes them; every consumer's inbox absorbs that.
 */
export class OutboxRelay {
  private running = false;
  private loop: Promise<void> | null = null;
  private listener: Client | null = null;
  private wake: (() => void) | null = null;
  /** Transient topics seen to exist; asked again after any failed publish. */
  private readonly knownTransientTopics = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly broker: Pick<MessageBroker, 'publish' | 'existingTopics'>,
    private readonly options: OutboxRelayOptions,
  ) {}

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  /** Publishes one batch; returns how many messages went out. */
  async relayBatch(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      // Marking rows published needs no synchronous commit: if a crash loses the mark, the rows
      // are published again, which every consumer's inbox absorbs. This saves a WAL flush per batch.
      const [{ locked }] = await manager.query(`SELECT set_config('synchronous_commit', 'off', true), pg_try_advisory_xact_lock($1) AS locked`, [RELAY_ADVISORY_LOCK_ID]);
      if (!locked) return 0;
      const rows: Array<{ position: string; topic: string; message_key: string; envelope: MessageEnvelope }> = await manager.query(
        `SELECT position, topic, message_key, envelope FROM outbox WHERE published_at IS NULL ORDER BY position LIMIT $1`,
        [this.options.batchSize],
      );
      if (rows.length === 0) return 0;
      const gone = await this.goneTransientTopics(rows.map((row) => row.topic));
      const deliverable = rows.filter((row) => !gone.has(row.topic));
      if (gone.size > 0) this.options.log('warn', `dropping ${rows.length - deliverable.length} message(s) to topics that no longer exist: ${[...gone].join(', ')}`);
      try {
        await this.broker.publish(deliverable.map((row) => ({ topic: row.topic, key: row.message_key, envelope: row.envelope })));
      } catch (error) {
        this.knownTransientTopics.clear();
        throw error;
      }
      await manager.query(`UPDATE outbox SET published_at = now() WHERE position = ANY($1::bigint[])`, [rows.map((row) => row.position)]);
      return rows.length;
    });
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
        if (published === this.options.batchSize) continue;
        await this.waitForWork(this.options.pollIntervalMs);
      } catch (error) {
        failures += 1;
        const delayMs = Math.min(100 * 2 ** failures, 5_000);
        this.options.log('warn', `outbox relay failed (attempt ${failures}), retrying in ${delayMs} ms: ${String(error)}`);
        await this.waitForWork(delayMs);
      }
    }
  }

  private waitForWork(timeoutMs: number): Promise<void> {
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

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.options.connectionString });
    client.on('notification', () => this.wake?.());
    client.on('error', (error) => {
      // Polling keeps the relay working; the listener is re-established in the background.
      this.options.log('warn', `outbox listener lost: ${String(error)}`);
      this.listener = null;
      setTimeout(() => this.running && this.listen().catch(() => undefined), 1_000);
    });
    await client.connect();
    await client.query(`LISTEN ${OUTBOX_NOTIFY_CHANNEL}`);
    this.listener = client;
  }
}
