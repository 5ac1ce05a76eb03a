import type { EntityManager } from 'typeorm';
import { anchorHash, type AnchoredHead } from './event-chain';

const DAY_MS = 86_400_000;

/**
 * How long after midnight UTC a day counts as closed: an event's recorded_at is its
 * transaction's start, so a transaction begun just before midnight may commit a little after
 * it. Every transaction that appends is far shorter than this (statement and idle timeouts).
 */
export const ANCHOR_SETTLE_MS = 15 * 60_000;

/** One closed UTC day's anchor of a store, as the back office and the auditor read it. */
export interface EventStoreAnchor {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  /** The previous day's anchor, hex; null for the store's first anchor. */
  previousHash: string | null;
  /** How many streams the day changed (the heads the anchor commits to). */
  streams: number;
  /** sha256, hex (docs/decisions/event-hash-chain.md). */
  hash: string;
  madeAt: string;
}

const dayOf = (instant: Date): string => instant.toISOString().slice(0, 10);
const nextDay = (day: string): string => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS));

/**
 * Anchors every closed UTC day not anchored yet, oldest first, from the day of the store's
 * first event (days without events get an anchor too, so the anchors stay one chain). Replicas
 * may run it at once: a transaction-scoped advisory lock lets one anchor while the others wait
 * and then find the days done. Returns the days it anchored.
 */
export async function anchorClosedDays(manager: EntityManager, now: Date, settleMs = ANCHOR_SETTLE_MS): Promise<string[]> {
  const firstOpenDay = dayOf(new Date(now.getTime() - settleMs));
  return manager.transaction(async (transaction) => {
    await transaction.query(`SELECT pg_advisory_xact_lock(hashtext('event_store_anchors'))`);
    const [last]: Array<{ day: string; hash: Buffer }> = await transaction.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, hash FROM event_store_anchors ORDER BY day DESC LIMIT 1`,
    );
    let day: string | undefined = last ? nextDay(last.day) : undefined;
    if (day === undefined) {
      const [first]: Array<{ recorded_at: Date }> = await transaction.query(`SELECT recorded_at FROM event_store ORDER BY global_position LIMIT 1`);
      if (!first) return [];
      day = dayOf(first.recorded_at);
    }
    let previous = last?.hash ?? null;
    const anchored: string[] = [];
    for (; day < firstOpenDay; day = nextDay(day)) {
      const rows: Array<{ stream_id: string; stream_version: number; hash: Buffer }> = await transaction.query(
        `SELECT DISTINCT ON (stream_id) stream_id, stream_version, hash FROM event_store
          WHERE recorded_at >= $1::date AND recorded_at < $1::date + 1 ORDER BY stream_id, stream_version DESC`,
        [day],
      );
      const heads: AnchoredHead[] = rows.map((row) => ({ streamId: row.stream_id, streamVersion: row.stream_version, hash: row.hash }));
      const hash = anchorHash(day, previous, heads);
      await transaction.query(`INSERT INTO event_store_anchors (day, previous_hash, streams, hash) VALUES ($1, $2, $3, $4)`, [
        day,
        previous,
        heads.length,
        hash,
      ]);
      await transaction.query(
        `INSERT INTO event_store_anchor_heads (day, stream_id, stream_version, hash) SELECT $1, * FROM unnest($2::text[], $3::integer[], $4::bytea[])`,
        [day, heads.map((head) => head.streamId), heads.map((head) => head.streamVersion), heads.map((head) => head.hash)],
      );
      previous = hash;
      anchored.push(day);
    }
    return anchored;
  });
}

/** The store's anchors, newest first, `limit` of them, those before `beforeDay` when given. */
export async function listAnchors(manager: EntityManager, options: { limit: number; beforeDay?: string }): Promise<EventStoreAnchor[]> {
  const rows: Array<{ day: string; previous_hash: Buffer | null; streams: number; hash: Buffer; made_at: Date }> = await manager.query(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, previous_hash, streams, hash, made_at FROM event_store_anchors
      WHERE $1::date IS NULL OR day < $1::date ORDER BY day DESC LIMIT $2`,
    [options.beforeDay ?? null, options.limit],
  );
  return rows.map((row) => ({
    day: row.day,
    previousHash: row.previous_hash?.toString('hex') ?? null,
    streams: row.streams,
    hash: row.hash.toString('hex'),
    madeAt: row.made_at.toISOString(),
  }));
}

/** A stream's last event recorded before `before`: what a day's anchor lists for it once the day is anchored. Null when it had none. */
export async function streamHeadBefore(manager: EntityManager, streamId: string, before: Date): Promise<{ streamVersion: number; hash: string } | null> {
  const [row]: Array<{ stream_version: number; hash: Buffer }> = await manager.query(
    `SELECT stream_version, hash FROM event_store WHERE stream_id = $1 AND recorded_at < $2 ORDER BY stream_version DESC LIMIT 1`,
    [streamId, before],
  );
  return row ? { streamVersion: row.stream_version, hash: row.hash.toString('hex') } : null;
}
