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

  constructor(
    private readonly dataSource: DataSource,
    private readonly broker: Pick<MessageBroker, 'publish'>,
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
      const [{ locked }] = await manager.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [RELAY_ADVISORY_LOCK_ID]);
      if (!locked) return 0;
      const rows: Array<{ position: string; topic: string; message_key: string; envelope: MessageEnvelope }> = await manager.query(
        `SELECT position, topic, message_key, envelope FROM outbox WHERE published_at IS NULL ORDER BY position LIMIT $1`,
        [this.options.batchSize],
      );
      if (rows.length === 0) return 0;
      await this.broker.publish(rows.map((row) => ({ topic: row.topic, key: row.message_key, envelope: row.envelope })));
      await manager.query(`UPDATE outbox SET published_at = now() WHERE position = ANY($1::bigint[])`, [rows.map((row) => row.position)]);
      return rows.length;
    });
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
