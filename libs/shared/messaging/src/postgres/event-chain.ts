import { createHash } from 'node:crypto';
import type { MessageEnvelope } from '../envelope';

/**
 * The event store's hash chain (docs/decisions/event-hash-chain.md): every event's `hash` is
 * sha256(previous hash of its stream || digest of the event), the first event of a stream
 * chaining to the empty string; each closed UTC day's anchor commits to every stream head the
 * day changed and to the previous day's anchor. Writers (appendToStream, the migration's
 * backfill, the anchoring task) and the auditor compute both with these functions only.
 */

/** What the first event of a stream chains to. */
export const CHAIN_GENESIS: Buffer = Buffer.alloc(0);

/**
 * RFC 8785 (JSON Canonicalization Scheme) of a value made by JSON.parse. Written here rather than
 * taken from a package: none is in the dependency tree, and on values JSON.parse made the scheme
 * is exactly JSON.stringify with object keys sorted by UTF-16 code units (ECMAScript number and
 * string serialisation are the scheme's own), a few lines.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, as RFC 8785 section 3.2.3 asks.
  const keys = Object.keys(record).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}

const sha256 = (...parts: Array<Buffer | string>): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/**
 * The digest of one event as stored: the canonical JSON of its stream, version and envelope. The
 * envelope is taken as JSON (the text the store is given, parsed back) so the auditor, reading
 * the JSONB column (which keeps neither key order nor spacing), derives the same bytes.
 */
export function eventDigest(streamId: string, streamVersion: number, envelope: MessageEnvelope | unknown): Buffer {
  return sha256(canonicalJson({ streamId, streamVersion, envelope }));
}

/** One link: what the store computes in SQL as sha256(previous || digest) (event_store_chain). */
export function chainHash(previous: Buffer, digest: Buffer): Buffer {
  return sha256(previous, digest);
}

/** A stream's last event of a day, as an anchor lists it. */
export interface AnchoredHead {
  streamId: string;
  streamVersion: number;
  hash: Buffer;
}

/**
 * A day's anchor: sha256(previous anchor || sha256(canonical JSON of the day and its heads,
 * sorted by stream id)). The first anchor of a store chains to the empty string.
 */
export function anchorHash(day: string, previous: Buffer | null, heads: readonly AnchoredHead[]): Buffer {
  const sorted = [...heads].sort((a, b) => (a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0));
  const listed = canonicalJson({ day, heads: sorted.map((head) => [head.streamId, head.streamVersion, head.hash.toString('hex')]) });
  return sha256(previous ?? CHAIN_GENESIS, sha256(listed));
}
