import type { Decider, DomainEvent, EventCodec } from '@mp/shared-decider';
import type { MessageEnvelope } from '@mp/shared-messaging';
import type { DataSource, EntityManager } from 'typeorm';
import type { AppendedEvents } from './handle-command';

/** One table a projection writes, named as the service names it. */
export interface ProjectionTable {
  name: string;
  /**
   * Columns the events do not decide (an insertion counter, a flag set by another context's
   * message, a write time): neither compared nor copied back, so the switch keeps the live value.
   */
  notDerived?: readonly string[];
  /** The columns that match a rebuilt row with its live one, when the primary key is not derivable (a serial id); the primary key by default. */
  key?: readonly string[];
}

/** An event of the store as the rebuild reads it. */
export interface StoredEvent {
  position: string;
  streamId: string;
  streamVersion: number;
  envelope: MessageEnvelope;
  recordedAt: Date;
}

/** Writes one stream's next events (in stream order) into the tables the search path names. */
export interface StreamFolder {
  apply(manager: EntityManager, streamId: string, events: readonly StoredEvent[]): Promise<void>;
}

/**
 * A projection the rebuild can make again from the service's event store: its tables (in the
 * order the service's writers lock them, which the switch follows so it never deadlocks with
 * them), the streams it folds and how (through the service's own projector).
 */
export interface RebuildableProjection {
  service: string;
  name: string;
  description: string;
  tables: readonly ProjectionTable[];
  /** LIKE pattern of the stream ids the projection folds, e.g. `payment-order:%`. */
  streams: string;
  folder(context: FolderContext): StreamFolder;
}

/** What a folder may need besides the shadow tables. */
export interface FolderContext {
  /** The schema of the live tables: where a column the events do not decide is read from. */
  liveSchema: string;
}

/**
 * The folder of a projection written in a command's `afterAppend`: each stream's state is
 * folded with the decider's evolve, and each run of a stream's events goes to `project` as the
 * command core hands it over after an append, so the rebuild writes exactly what the service
 * writes. `prepare` runs before a stream's first events (e.g. the row an incremental projector
 * expects to find).
 */
export function deciderFolder<State, Command, Event extends DomainEvent>(definition: {
  decider: (streamId: string) => Decider<State, Command, Event>;
  codec: EventCodec<Event>;
  project: (manager: EntityManager, appended: AppendedEvents<State, Event>) => Promise<void>;
  prepare?: (manager: EntityManager, streamId: string) => Promise<void>;
}): StreamFolder {
  const streams = new Map<string, { decider: Decider<State, Command, Event>; state: State; version: number }>();
  return {
    async apply(manager, streamId, stored) {
      let stream = streams.get(streamId);
      if (!stream) {
        const decider = definition.decider(streamId);
        stream = { decider, state: decider.initialState(), version: 0 };
        streams.set(streamId, stream);
        await definition.prepare?.(manager, streamId);
      }
      const { decider } = stream;
      const events = stored.map((event) => definition.codec.read(event.envelope));
      const stateBefore = stream.state;
      const state = events.reduce((current, event) => decider.evolve(current, event), stateBefore);
      const versionBefore = stream.version;
      const version = stored[stored.length - 1].streamVersion;
      if (stored[0].streamVersion !== versionBefore + 1) throw new Error(`${streamId}: the rebuild expected version ${versionBefore + 1} and read ${stored[0].streamVersion}`);
      await definition.project(manager, { streamId, stateBefore, events, state, envelopes: stored.map((event) => event.envelope), versionBefore, version });
      stream.state = state;
      stream.version = version;
    },
  };
}

/** One difference between the live projection and the rebuilt one. */
export interface ProjectionDifference {
  table: string;
  /** The row's primary key. */
  key: Record<string, unknown>;
  /** `changed`: one column differs; `missing`: the rebuild has a row the live table lacks; `extra`: the live row has no events behind it. */
  kind: 'changed' | 'missing' | 'extra';
  column?: string;
  live?: unknown;
  rebuilt?: unknown;
}

export interface RebuildReport {
  projection: string;
  switched: boolean;
  eventsFolded: number;
  /** The last event store position folded. */
  position: string;
  seconds: number;
  eventsPerSecond: number;
  differences: ProjectionDifference[];
  /** Per table, the columns kept from the live rows (not derivable from the events). */
  notDerived: Array<{ table: string; columns: readonly string[] }>;
}

export interface RebuildOptions {
  /** Copy the rebuilt rows over the live ones (one transaction); otherwise only report. */
  switch: boolean;
  batchSize?: number;
  /** How long to wait for transactions that may still commit an event below the last one read. */
  gapWaitMs?: number;
  /** How long the switch waits for the live tables' lock before trying again. */
  lockTimeoutMs?: number;
  log?: (line: string) => void;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** The shadow schema of a projection: same-named tables, so its projector writes there with `SET LOCAL search_path`. */
export function shadowSchemaOf(projection: Pick<RebuildableProjection, 'service' | 'name'>): string {
  return `rebuild_${projection.service}_${projection.name}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
}

/**
 * Rebuilds a projection online (docs/operations/projection-rebuild.md): shadow tables made
 * like the live ones, the service's event store folded into them in global_position order
 * through the service's projector, caught up to the live position, compared with the live
 * tables and, with `switch`, copied over them in one transaction under a lock that stops
 * writers (readers go on) for the last catch-up, the comparison and the copy.
 */
export async function rebuildProjection(dataSource: DataSource, projection: RebuildableProjection, options: RebuildOptions): Promise<RebuildReport> {
  const log = options.log ?? (() => undefined);
  const batchSize = options.batchSize ?? 1000;
  const schema = shadowSchemaOf(projection);
  const [{ live }]: Array<{ live: string }> = await dataSource.query(`SELECT current_schema() AS live`);
  const startedAt = Date.now();
  await createShadow(dataSource, schema, live, projection.tables);
  const folder = projection.folder({ liveSchema: live });
  const reader = new EventReader(dataSource, projection.streams, batchSize, options.gapWaitMs ?? 10_000);
  let eventsFolded = 0;
  const foldInto = async (manager: EntityManager, events: StoredEvent[]): Promise<void> => {
    await manager.query(`SET LOCAL search_path TO ${quote(schema)}, ${quote(live)}`);
    for (const [streamId, run] of byStream(events)) await folder.apply(manager, streamId, run);
    await manager.query(`SET LOCAL search_path TO ${quote(live)}`);
    eventsFolded += events.length;
  };
  try {
    for (;;) {
      const batch = await reader.next();
      if (batch.length === 0) break;
      await dataSource.transaction((manager) => foldInto(manager, batch));
      log(`${projection.service}.${projection.name}: ${eventsFolded} events folded, at position ${reader.position}`);
    }
    const differences = await finish(dataSource, projection, schema, live, options, async (manager) => {
      for (let batch = await reader.next(manager, false); batch.length > 0; batch = await reader.next(manager, false)) await foldInto(manager, batch);
    });
    const seconds = (Date.now() - startedAt) / 1000;
    return {
      projection: `${projection.service}.${projection.name}`,
      switched: options.switch,
      eventsFolded,
      position: reader.position,
      seconds,
      eventsPerSecond: seconds > 0 ? Math.round(eventsFolded / seconds) : eventsFolded,
      differences,
      notDerived: projection.tables.filter((table) => (table.notDerived ?? []).length > 0).map((table) => ({ table: table.name, columns: table.notDerived ?? [] })),
    };
  } finally {
    await dataSource.query(`DROP SCHEMA IF EXISTS ${quote(schema)} CASCADE`);
  }
}

async function createShadow(dataSource: DataSource, schema: string, live: string, tables: readonly ProjectionTable[]): Promise<void> {
  await dataSource.query(`DROP SCHEMA IF EXISTS ${quote(schema)} CASCADE`);
  await dataSource.query(`CREATE SCHEMA ${quote(schema)}`);
  for (const table of tables) await dataSource.query(`CREATE TABLE ${quote(schema)}.${quote(table.name)} (LIKE ${quote(live)}.${quote(table.name)} INCLUDING ALL)`);
}

/** Consecutive events grouped by stream, in the order of each stream's first event: one projector call per stream per batch. */
function byStream(events: readonly StoredEvent[]): Map<string, StoredEvent[]> {
  const streams = new Map<string, StoredEvent[]>();
  for (const event of events) {
    const run = streams.get(event.streamId);
    if (run) run.push(event);
    else streams.set(event.streamId, [event]);
  }
  return streams;
}

/**
 * Reads the store in global_position order without skipping an event that commits late. A
 * position is taken when the event is inserted, so a transaction still open may commit one
 * below a position already read. When a batch has a hole, only the part before it is taken;
 * the rest waits until every transaction open at the read has ended (pg_xact_status), and then
 * what is below the last position read is final: an event missing there was rolled back.
 */
class EventReader {
  position = '0';

  constructor(
    private readonly dataSource: DataSource,
    private readonly streams: string,
    private readonly batchSize: number,
    private readonly gapWaitMs: number,
  ) {}

  /** The next events; `waitForHoles` false when the caller holds the lock every writer of the projection needs. */
  async next(manager: EntityManager = this.dataSource.manager, waitForHoles = true): Promise<StoredEvent[]> {
    const { events, openTransactions, last } = await this.read(manager, this.position, null);
    if (events.length === 0) {
      // Nothing of this projection, but the store moved on: skip what is not ours once final.
      return [];
    }
    const contiguous = waitForHoles ? await this.contiguousPrefix(events) : events.length;
    if (contiguous === events.length || !waitForHoles) return this.take(events);
    await this.waitForEnd(manager, openTransactions);
    const settled = await this.read(manager, this.position, last);
    return this.take(settled.events);
  }

  private take(events: StoredEvent[]): StoredEvent[] {
    if (events.length > 0) this.position = events[events.length - 1].position;
    return events;
  }

  /** How many events lead with no position of the whole store missing between them. */
  private async contiguousPrefix(events: StoredEvent[]): Promise<number> {
    const rows: Array<{ holes: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS holes FROM generate_series($1::bigint + 1, $2::bigint) AS wanted(position)
        WHERE NOT EXISTS (SELECT 1 FROM event_store WHERE global_position = wanted.position)`,
      [this.position, events[events.length - 1].position],
    );
    return rows[0].holes === 0 ? events.length : 0;
  }

  private async read(manager: EntityManager, after: string, upTo: string | null): Promise<{ events: StoredEvent[]; openTransactions: string[]; last: string }> {
    const rows: Array<{ global_position: string; stream_id: string; stream_version: number; envelope: MessageEnvelope; recorded_at: Date; open: string[] }> = await manager.query(
      `WITH snapshot AS (SELECT ARRAY(SELECT pg_snapshot_xip(pg_current_snapshot())::text) AS open)
       SELECT e.global_position::text AS global_position, e.stream_id, e.stream_version, e.envelope, e.recorded_at, snapshot.open
         FROM snapshot LEFT JOIN LATERAL (
           SELECT * FROM event_store
            WHERE global_position > $1::bigint AND ($2::bigint IS NULL OR global_position <= $2::bigint) AND stream_id LIKE $3
            ORDER BY global_position LIMIT $4) e ON true`,
      [after, upTo, this.streams, upTo === null ? this.batchSize : null],
    );
    const events = rows
      .filter((row) => row.global_position !== null)
      .map((row) => ({ position: row.global_position, streamId: row.stream_id, streamVersion: row.stream_version, envelope: row.envelope, recordedAt: row.recorded_at }));
    return { events, openTransactions: rows[0]?.open ?? [], last: events.at(-1)?.position ?? after };
  }

  private async waitForEnd(manager: EntityManager, transactions: string[]): Promise<void> {
    const deadline = Date.now() + this.gapWaitMs;
    while (transactions.length > 0 && Date.now() < deadline) {
      const [{ open }]: Array<{ open: number }> = await manager.query(`SELECT count(*)::int AS open FROM unnest($1::xid8[]) AS t(xid) WHERE pg_xact_status(t.xid) = 'in progress'`, [transactions]);
      if (open === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** The last catch-up, the comparison and the switch (or not), in one transaction holding the live tables against writers. */
async function finish(
  dataSource: DataSource,
  projection: RebuildableProjection,
  schema: string,
  live: string,
  options: RebuildOptions,
  catchUp: (manager: EntityManager) => Promise<void>,
): Promise<ProjectionDifference[]> {
  const tables = projection.tables.map((table) => `${quote(live)}.${quote(table.name)}`).join(', ');
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await dataSource.transaction(async (manager) => {
        await manager.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(options.lockTimeoutMs ?? 5000))}`);
        // EXCLUSIVE: plain reads go on; every writer (SELECT ... FOR UPDATE included) waits.
        await manager.query(`LOCK TABLE ${tables} IN EXCLUSIVE MODE`);
        await manager.query(`SET LOCAL lock_timeout = 0`);
        await catchUp(manager);
        const differences: ProjectionDifference[] = [];
        for (const table of projection.tables) {
          const columns = await compareColumns(manager, live, table);
          differences.push(...(await compare(manager, live, schema, table.name, columns)));
          if (options.switch) await copyBack(manager, live, schema, table.name, columns);
        }
        return differences;
      });
    } catch (error) {
      const code = (error as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (error as { code?: string }).code;
      // 55P03 lock_not_available, 40P01 deadlock_detected: writers were busy; try again.
      if ((code !== '55P03' && code !== '40P01') || attempt >= 10) throw error;
      options.log?.(`${projection.service}.${projection.name}: the live tables were busy (${code}); trying the switch again`);
    }
  }
}

interface TableColumns {
  key: string[];
  compared: string[];
}

async function compareColumns(manager: EntityManager, live: string, table: ProjectionTable): Promise<TableColumns> {
  const rows: Array<{ column_name: string; key: boolean }> = await manager.query(
    `SELECT a.attname AS column_name, COALESCE(a.attnum = ANY(i.indkey), false) AS key
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
      WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [live, table.name],
  );
  const notDerived = new Set(table.notDerived ?? []);
  const key = table.key ? [...table.key] : rows.filter((row) => row.key).map((row) => row.column_name);
  if (key.length === 0) throw new Error(`${table.name} has no primary key: the rebuild cannot match its rows`);
  return { key, compared: rows.filter((row) => !notDerived.has(row.column_name)).map((row) => row.column_name) };
}

/** A schema-qualified table name, for a folder that reads a live column (FolderContext). */
export function qualifiedTable(schema: string, table: string): string {
  return `${quote(schema)}.${quote(table)}`;
}

async function compare(manager: EntityManager, live: string, schema: string, table: string, { key, compared }: TableColumns): Promise<ProjectionDifference[]> {
  const on = key.map((column) => `l.${quote(column)} = s.${quote(column)}`).join(' AND ');
  const tuple = (alias: string) => `ROW(${compared.map((column) => `${alias}.${quote(column)}`).join(', ')})`;
  // Values as text, so that a NUMERIC or BIGINT is compared and reported exactly.
  const asText = (alias: string) =>
    `CASE WHEN ${alias}.${quote(key[0])} IS NULL THEN NULL ELSE jsonb_build_object(${compared.map((column) => `'${column}', ${alias}.${quote(column)}::text`).join(', ')}) END`;
  const rows: Array<{ live: Record<string, string | null> | null; rebuilt: Record<string, string | null> | null }> = await manager.query(
    `SELECT ${asText('l')} AS live, ${asText('s')} AS rebuilt
       FROM ${quote(live)}.${quote(table)} l FULL JOIN ${quote(schema)}.${quote(table)} s ON ${on}
      WHERE l.${quote(key[0])} IS NULL OR s.${quote(key[0])} IS NULL OR ${tuple('l')} IS DISTINCT FROM ${tuple('s')}
      ORDER BY ${key.map((column) => `COALESCE(l.${quote(column)}, s.${quote(column)})`).join(', ')}`,
  );
  return rows.flatMap((row): ProjectionDifference[] => {
    const either = (row.live ?? row.rebuilt) as Record<string, string | null>;
    const rowKey = Object.fromEntries(key.map((column) => [column, either[column]]));
    if (!row.live) return [{ table, key: rowKey, kind: 'missing', rebuilt: row.rebuilt }];
    if (!row.rebuilt) return [{ table, key: rowKey, kind: 'extra', live: row.live }];
    const liveRow = row.live;
    const rebuiltRow = row.rebuilt;
    return compared
      .filter((column) => liveRow[column] !== rebuiltRow[column])
      .map((column) => ({ table, key: rowKey, kind: 'changed' as const, column, live: liveRow[column], rebuilt: rebuiltRow[column] }));
  });
}

/** The live table made equal to the rebuilt one in the compared columns; the others keep their live values (or defaults on new rows). */
async function copyBack(manager: EntityManager, live: string, schema: string, table: string, { key, compared }: TableColumns): Promise<void> {
  const target = `${quote(live)}.${quote(table)}`;
  const shadow = `${quote(schema)}.${quote(table)}`;
  const on = key.map((column) => `l.${quote(column)} = s.${quote(column)}`).join(' AND ');
  const values = compared.filter((column) => !key.includes(column));
  const list = compared.map(quote).join(', ');
  await manager.query(`DELETE FROM ${target} l WHERE NOT EXISTS (SELECT 1 FROM ${shadow} s WHERE ${on})`);
  if (values.length > 0) {
    await manager.query(
      `UPDATE ${target} l SET ${values.map((column) => `${quote(column)} = s.${quote(column)}`).join(', ')}
         FROM ${shadow} s WHERE ${on} AND ROW(${values.map((column) => `l.${quote(column)}`).join(', ')}) IS DISTINCT FROM ROW(${values.map((column) => `s.${quote(column)}`).join(', ')})`,
    );
  }
  await manager.query(`INSERT INTO ${target} (${list}) SELECT ${compared.map((column) => `s.${quote(column)}`).join(', ')} FROM ${shadow} s WHERE NOT EXISTS (SELECT 1 FROM ${target} l WHERE ${on})`);
}
