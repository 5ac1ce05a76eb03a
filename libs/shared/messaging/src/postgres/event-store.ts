import type { EntityManager } from 'typeorm';
import type { MessageEnvelope } from '../envelope';

/** Raised when another writer appended to the stream first; the caller re-reads and retries. */
export class StreamVersionConflictError extends Error {
  constructor(readonly streamId: string, readonly expectedVersion: number) {
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

/** Appends events after `expectedVersion`; the unique (stream_id, stream_version) constraint decides races. */
export async function appendToStream(
  manager: EntityManager,
  streamId: string,
  expectedVersion: number,
  events: MessageEnvelope[],
): Promise<number> {
  if (events.length === 0) return expectedVersion;
  const values: unknown[] = [];
  const rows = events.map((event, index) => {
    values.push(streamId, expectedVersion + index + 1, event.id, event.type, event.schemaVersion, JSON.stringify(event));
    const base = index * 6;
    return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6})`;
  });
  try {
    await manager.query(
      `INSERT INTO event_store (stream_id, stream_version, event_id, event_type, schema_version, envelope) VALUES ${rows.join(', ')}`,
      values,
    );
  } catch (error) {
    const driverError = error as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
    const constraint = driverError.constraint ?? driverError.driverError?.constraint;
    if (constraint === 'event_store_stream_version_unique') throw new StreamVersionConflictError(streamId, expectedVersion);
    throw error;
  }
  return expectedVersion + events.length;
}
