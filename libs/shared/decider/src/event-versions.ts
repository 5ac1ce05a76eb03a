import type { DomainEvent } from './decider';
import type { EventCodec, EventTypeSchema, StoredEventRecord } from './event-schemas';

/**
 * A service's fixture of stored events (its domain's event-versions.fixture.json): envelopes as
 * the event store keeps them, in streams the service could really have written, holding every
 * (type, schema version) ever written, so today's code is shown to read all of history.
 */
export interface EventVersionFixture {
  service: string;
  streams: Array<{ streamId: string; events: StoredEventRecord[] }>;
}

/** What replays a stream: the aggregate's fold, from its first event. */
export interface StreamFold<Event extends DomainEvent> {
  initialState(): unknown;
  evolve(state: never, event: Event): unknown;
}

export interface EventVersionCheckOptions<Event extends DomainEvent> {
  schemas: Readonly<Record<string, EventTypeSchema>>;
  codec: EventCodec<Event>;
  /** The fold of a stream by its id (the ledger's depends on the merchant and currency in it). */
  foldOf(streamId: string): StreamFold<Event>;
  fixture: EventVersionFixture;
  /** docs/operations/event-catalogue.md as it stands. */
  catalogue: string;
}

/** The versions of each type the fixture holds, ascending. */
function versionsWritten(fixture: EventVersionFixture): Map<string, number[]> {
  const versions = new Map<string, Set<number>>();
  for (const stream of fixture.streams)
    for (const event of stream.events) versions.set(event.type, (versions.get(event.type) ?? new Set()).add(event.schemaVersion));
  return new Map([...versions].map(([type, set]) => [type, [...set].sort((a, b) => a - b)]));
}

/**
 * The rule a new event version must keep: every type's current version is in the fixture, and
 * every version written before it, from the first one ever written, is in the fixture and has
 * its upcaster to the next. Returns each broken rule, empty when all hold.
 */
export function eventVersionGaps(schemas: Readonly<Record<string, EventTypeSchema>>, fixture: EventVersionFixture): string[] {
  const written = versionsWritten(fixture);
  const gaps: string[] = [];
  for (const [type, schema] of Object.entries(schemas)) {
    const versions = written.get(type) ?? [];
    if (!versions.includes(schema.version)) gaps.push(`${type}: version ${schema.version}, the current one, has no stored event in the fixture`);
    const first = versions[0] ?? schema.version;
    for (let version = first; version < schema.version; version += 1) {
      if (!versions.includes(version))
        gaps.push(`${type}: version ${version} (between the first written, ${first}, and the current, ${schema.version}) has no stored event in the fixture`);
      if (!schema.upcasters?.[version]) gaps.push(`${type}: version ${version} has no upcaster to version ${version + 1}`);
    }
    for (const version of versions)
      if (version > schema.version) gaps.push(`${type}: the fixture holds version ${version}, newer than the current ${schema.version}`);
  }
  for (const type of written.keys()) if (!Object.prototype.hasOwnProperty.call(schemas, type)) gaps.push(`${type}: in the fixture but no schema reads it`);
  return gaps;
}

/** Every fixture stream read through today's codec (upcasters) and folded through today's evolve; the errors, empty when none. */
export function replayEventVersionFixture<Event extends DomainEvent>(options: Pick<EventVersionCheckOptions<Event>, 'codec' | 'foldOf' | 'fixture'>): string[] {
  const errors: string[] = [];
  for (const stream of options.fixture.streams) {
    const fold = options.foldOf(stream.streamId);
    let state = fold.initialState();
    stream.events.forEach((record, index) => {
      try {
        state = fold.evolve(state as never, options.codec.read(record));
      } catch (error) {
        errors.push(
          `${stream.streamId} event ${index + 1} (${record.type} version ${record.schemaVersion}): ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
  }
  return errors;
}

/** The catalogue's table for one service, as the fixture and the schemas give it. */
export function eventCatalogueTable(schemas: Readonly<Record<string, EventTypeSchema>>, fixture: EventVersionFixture): string {
  const written = versionsWritten(fixture);
  const rows = Object.entries(schemas)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([type, schema]) => {
      const upcasters = Object.keys(schema.upcasters ?? {}).map((version) => `${version} → ${Number(version) + 1}`);
      return `| ${type} | ${(written.get(type) ?? []).join(', ')} | ${schema.version} | ${upcasters.join(', ') || '—'} |`;
    });
  return ['| Event type | Versions ever written | Written now | Upcasters |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** The table between `<!-- event-catalogue:SERVICE -->` and `<!-- /event-catalogue:SERVICE -->` in the catalogue page, or null. */
function catalogueSection(catalogue: string, service: string): string | null {
  const match = new RegExp(`<!-- event-catalogue:${service} -->\\n([^]*?)\\n<!-- /event-catalogue:${service} -->`).exec(catalogue);
  return match ? match[1] : null;
}

/**
 * The checks each service's event-versions spec runs (one `it` each): the version rule, the
 * replay of the fixture, and the catalogue page's table. Each throws what is wrong.
 */
export function eventVersionChecks<Event extends DomainEvent>(options: EventVersionCheckOptions<Event>): Array<{ name: string; run: () => void }> {
  const fail = (problems: string[]) => {
    if (problems.length > 0) throw new Error(problems.join('\n'));
  };
  return [
    {
      name: 'has a stored event of every current version, and of every older one with its upcaster',
      run: () => fail(eventVersionGaps(options.schemas, options.fixture)),
    },
    {
      name: 'reads every stored version through today’s upcasters and folds every fixture stream through today’s evolve',
      run: () => fail(replayEventVersionFixture(options)),
    },
    {
      name: 'is listed as it is in docs/operations/event-catalogue.md',
      run: () => {
        const expected = eventCatalogueTable(options.schemas, options.fixture);
        const listed = catalogueSection(options.catalogue, options.fixture.service);
        if (listed !== expected)
          fail([
            `docs/operations/event-catalogue.md must hold, between <!-- event-catalogue:${options.fixture.service} --> and <!-- /event-catalogue:${options.fixture.service} -->:\n${expected}`,
          ]);
      },
    },
  ];
}
