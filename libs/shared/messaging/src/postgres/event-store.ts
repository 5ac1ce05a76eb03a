import type { EntityManager } from 'typeorm';
import type { MessageEnvelope } from '../envelope';
import { eventDigest } from './event-chain';
import { executeOrDefer, violatedConstraint, type WriteFragment } from './one-write-statement';

/** Raised when another writer appended to the stream first; the caller re-reads and retries. */
export class StreamVersionConflictError extends Error {
  constructor(
    readonly streamId: string,
    readonly expectedVersion: number,
  ) {
    super(`stream ${streamId} is no longer at version ${expectedVersion}`);
    this.name = 'StreamVersionConflictError';
  }
}

export interface StoredStream {
  version: number;
  events: MessageEnvelope[];
}

/**
 * The events of a stream after `afterVersion` (all of them by default), in order. `version` is
 * the last one read, or `afterVersion` when there is none after it: a reader that starts from
 * a snapshot or a projection row at version N reads only what came after N.
 */
export async function readStream(manager: EntityManager, streamId: string, afterVersion = 0): Promise<StoredStream> {
  const rows: Array<{ stream_version: number; envelope: MessageEnvelope }> = await manager.query(
    `SELECT stream_version, envelope FROM event_store WHERE stream_id = $1 AND stream_version > $2 ORDER BY stream_version`,
    [streamId, afterVersion],
  );
  return { version: rows.length === 0 ? afterVersion : rows[rows.length - 1].stream_version, events: rows.map((row) => row.envelope) };
}

/** Raised when a stream's state was loaded at a version the event store does not have (a snapshot or projection ahead of its events). */
export class StreamVersionMissingError extends Error {
  constructor(
    readonly streamId: string,
    readonly version: number,
  ) {
    super(`${streamId}: the loaded state is at version ${version}, which the event store does not have; the snapshot or projection is ahead of the events`);
    this.name = 'StreamVersionMissingError';
  }
}

/**
 * Appends events after `expectedVersion` in one statement; the unique (stream_id,
 * stream_version) constraint decides races. The same statement chains each event's hash to the
 * stream's event at `expectedVersion` (event_store_chain, docs/decisions/event-hash-chain.md):
 * the event digests are computed here, the links in SQL, so appending stays one round trip and
 * takes no lock beyond the stream's own. When the stream has no event at `expectedVersion`
 * there is nothing to chain to, so nothing is appended and StreamVersionMissingError is raised.
 * Inside `withOneWriteStatement` the append joins the scope's one statement, and a conflict is
 * raised when that is sent.
 */
export async function appendToStream(manager: EntityManager, streamId: string, expectedVersion: number, events: MessageEnvelope[]): Promise<number> {
  if (events.length === 0) return expectedVersion;
  await executeOrDefer(manager, appendStatement(streamId, expectedVersion, events));
  return expectedVersion + events.length;
}

/** The event store's insert, as a statement of its own or a part of a larger one; the only place it is written. */
function appendStatement(streamId: string, expectedVersion: number, events: MessageEnvelope[]): WriteFragment {
  const values: unknown[] = [streamId, expectedVersion];
  const digests: Buffer[] = [];
  const rows = events.map((event, index) => {
    const json = JSON.stringify(event);
    digests.push(eventDigest(streamId, expectedVersion + index + 1, JSON.parse(json)));
    values.push(expectedVersion + index + 1, event.id, event.type, event.schemaVersion, json);
    const base = 2 + index * 5;
    // Typed: the rows are a VALUES list under a SELECT.
    return `($${base + 1}::integer, $${base + 2}::uuid, $${base + 3}::text, $${base + 4}::integer, $${base + 5}::jsonb)`;
  });
  values.push(digests);
  const sql = `INSERT INTO event_store (stream_id, stream_version, event_id, event_type, schema_version, envelope, hash)
       SELECT $1, appended.stream_version, appended.event_id, appended.event_type, appended.schema_version, appended.envelope, chain.chain_hash
         FROM (VALUES ${rows.join(', ')}) AS appended (stream_version, event_id, event_type, schema_version, envelope)
         JOIN event_store_chain($1, $2, $${values.length}::bytea[]) AS chain ON chain.chain_version = appended.stream_version
       RETURNING stream_version`;
  return {
    sql,
    params: values,
    check: (inserted) => {
      if (inserted !== events.length) throw new StreamVersionMissingError(streamId, expectedVersion);
    },
    translateError: (error) =>
      violatedConstraint(error) === 'event_store_stream_version_unique' ? new StreamVersionConflictError(streamId, expectedVersion) : undefined,
  };
}
