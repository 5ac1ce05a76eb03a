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
      if (stored[0].streamVersion !== versionBefore + 1)
        throw new Error(`${streamId}: the rebuild expected version ${versionBefore + 1} and read ${stored[0].streamVersion}`);
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
  const fold = new ShadowFold(projection, schema, live);
  const reader = new EventReader(`${quote(live)}.event_store`, projection.streams, batchSize);
  try {
    // Unlocked: until a batch comes back short, the rebuild is at the head the store had then.
    for (let full = true; full;) {
      const batch = await reader.next(dataSource.manager);
      full = batch.read === batchSize;
      if (batch.events.length > 0) await dataSource.transaction((manager) => fold.apply(manager, batch.events));
      log(`${projection.service}.${projection.name}: ${fold.eventsFolded} events folded, at position ${reader.position}`);
    }
    const differences = await finish(dataSource, projection, schema, live, options, async (manager) => {
      for (let batch = await reader.next(manager); batch.read > 0; batch = await reader.next(manager)) await fold.apply(manager, batch.events);
      await fold.apply(manager, await reader.lateEvents(manager));
    });
    const seconds = (Date.now() - startedAt) / 1000;
    return {
      projection: `${projection.service}.${projection.name}`,
      switched: options.switch,
      eventsFolded: fold.eventsFolded,
      position: reader.position,
      seconds,
      eventsPerSecond: seconds > 0 ? Math.round(fold.eventsFolded / seconds) : fold.eventsFolded,
      differences,
      notDerived: projection.tables
        .filter((table) => (table.notDerived ?? []).length > 0)
        .map((table) => ({ table: table.name, columns: table.notDerived ?? [] })),
    };
  } finally {
    await dataSource.query(`DROP SCHEMA IF EXISTS ${quote(schema)} CASCADE`);
  }
}

async function createShadow(dataSource: DataSource, schema: string, live: string, tables: readonly ProjectionTable[]): Promise<void> {
  await dataSource.query(`DROP SCHEMA IF EXISTS ${quote(schema)} CASCADE`);
  await dataSource.query(`CREATE SCHEMA ${quote(schema)}`);
  for (const table of tables)
    await dataSource.query(`CREATE TABLE ${quote(schema)}.${quote(table.name)} (LIKE ${quote(live)}.${quote(table.name)} INCLUDING ALL)`);
}

const EVENT_COLUMNS = `global_position::text AS position, stream_id AS "streamId", stream_version AS "streamVersion", envelope, recorded_at AS "recordedAt"`;

/**
 * The fold into the shadow tables, each stream in version order: a run of events that starts
 * past the stream's next version (its missing event committed late, below a position already
 * read) is preceded by the missing events, read by stream; events already folded are skipped.
 */
class ShadowFold {
  eventsFolded = 0;
  private readonly folder: StreamFolder;
  private readonly versions = new Map<string, number>();

  constructor(
    private readonly projection: RebuildableProjection,
    private readonly schema: string,
    private readonly live: string,
  ) {
    this.folder = projection.folder({ liveSchema: live });
  }

  async apply(manager: EntityManager, events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    await manager.query(`SET LOCAL search_path TO ${quote(this.schema)}, ${quote(this.live)}`);
    for (const [streamId, run] of byStream(events)) {
      const folded = this.versions.get(streamId) ?? 0;
      const next = run.filter((event) => event.streamVersion > folded);
      if (next.length === 0) continue;
      const missing: StoredEvent[] =
        next[0].streamVersion === folded + 1
          ? []
          : await manager.query(
              `SELECT ${EVENT_COLUMNS} FROM ${quote(this.live)}.event_store WHERE stream_id = $1 AND stream_version > $2 AND stream_version < $3 ORDER BY stream_version`,
              [streamId, folded, next[0].streamVersion],
            );
      const complete = [...missing, ...next];
      await this.folder.apply(manager, streamId, complete);
      this.versions.set(streamId, complete[complete.length - 1].streamVersion);
      this.eventsFolded += complete.length;
    }
    await manager.query(`SET LOCAL search_path TO ${quote(this.live)}`);
  }
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
 * Reads the whole store in global_position order, keeping the projection's streams. A position
 * is taken when an event is inserted, so a transaction still open may commit an event below a
 * position already read: every position missing between two read (a hole: a rolled-back append
 * or one not yet committed) is remembered, and `lateEvents` reads those that have since
 * committed. The fold fills a stream's own gaps by itself (ShadowFold); the holes are for the
 * last event of a stream, which no later event of its stream would reveal.
 */
class EventReader {
  position = '0';
  private readonly holes: bigint[] = [];

  constructor(
    private readonly store: string,
    private readonly streams: string,
    private readonly batchSize: number,
  ) {}

  /** The next events of the projection's streams, and how many of the store's were read. */
  async next(manager: EntityManager): Promise<{ events: StoredEvent[]; read: number }> {
    const rows: StoredEvent[] = await manager.query(
      `SELECT ${EVENT_COLUMNS} FROM ${this.store} WHERE global_position > $1::bigint ORDER BY global_position LIMIT $2`,
      [this.position, this.batchSize],
    );
    let expected = BigInt(this.position) + 1n;
    for (const row of rows) {
      for (let hole = expected; hole < BigInt(row.position); hole += 1n) this.holes.push(hole);
      expected = BigInt(row.position) + 1n;
    }
    if (rows.length > 0) this.position = rows[rows.length - 1].position;
    return { events: rows.filter((row) => matchesLike(row.streamId, this.streams)), read: rows.length };
  }

  /** The events of the projection's streams that committed into a hole after it was read past. */
  async lateEvents(manager: EntityManager): Promise<StoredEvent[]> {
    if (this.holes.length === 0) return [];
    return manager.query(
      `SELECT ${EVENT_COLUMNS} FROM ${this.store} WHERE global_position = ANY($1::bigint[]) AND stream_id LIKE $2 ORDER BY global_position`,
      [this.holes.map(String), this.streams],
    );
  }
}

/** SQL LIKE with `%` and `_`, as the store's stream patterns use it. */
function matchesLike(value: string, pattern: string): boolean {
  const expression = pattern
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/%/g, '.*')
    .replace(/_/g, '.');
  return new RegExp(`^${expression}$`, 's').test(value);
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
  // A generated column is neither compared nor copied: it follows from the others, and cannot be written.
  const rows: Array<{ column_name: string; key: boolean }> = await manager.query(
    `SELECT a.attname AS column_name, COALESCE(a.attnum = ANY(i.indkey), false) AS key
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
      WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
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
  await manager.query(
    `INSERT INTO ${target} (${list}) SELECT ${compared.map((column) => `s.${quote(column)}`).join(', ')} FROM ${shadow} s WHERE NOT EXISTS (SELECT 1 FROM ${target} l WHERE ${on})`,
  );
}
