import type { DomainEvent } from './decider';

/**
 * How each event type is stored and read back: the schema version new events are written
 * with, and the upcasters that bring older stored data up to it. Events are facts and the
 * store is append-only, so a payload change never rewrites history: it adds a version and an
 * upcaster here, and every reader (command handling, audits) sees only the current shape.
 */
export interface EventTypeSchema {
  /** The schemaVersion written with new events of this type. */
  readonly version: number;
  /** `upcasters[v]` turns the data of version `v` into version `v + 1`. */
  readonly upcasters?: Readonly<Record<number, (data: any) => unknown>>;
}

/** One schema per event type of the union: a type missing here does not compile. */
export type EventSchemas<Event extends DomainEvent> = { readonly [Type in Event['type']]: EventTypeSchema };

/** A stored event as the store gives it back. */
export interface StoredEventRecord {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
}

/** Raised for a stored event no schema can read: an unknown type, or a version from a newer release. */
export class UnreadableEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableEventError';
  }
}

/** Converts between stored records and typed domain events, by event type, in one place. */
export interface EventCodec<Event extends DomainEvent> {
  /** The typed, current-version event of a stored record; throws UnreadableEventError. */
  read(record: StoredEventRecord): Event;
  /** The schemaVersion to store a new event of this type with. */
  versionOf(type: Event['type']): number;
}

export function eventCodec<Event extends DomainEvent>(schemas: EventSchemas<Event>): EventCodec<Event> {
  const schemaOf = (type: string): EventTypeSchema => {
    if (!Object.prototype.hasOwnProperty.call(schemas, type)) throw new UnreadableEventError(`unknown event type ${type}`);
    return schemas[type as Event['type']];
  };
  return {
    read(record) {
      const schema = schemaOf(record.type);
      if (!Number.isInteger(record.schemaVersion) || record.schemaVersion > schema.version) {
        throw new UnreadableEventError(`${record.type} version ${record.schemaVersion} is newer than ${schema.version}, the latest this release reads`);
      }
      let data = record.data;
      for (let version = record.schemaVersion; version < schema.version; version += 1) {
        const upcast = schema.upcasters?.[version];
        if (!upcast) throw new UnreadableEventError(`${record.type} has no upcaster from version ${version}`);
        data = upcast(data);
      }
      // The one cast from stored JSON to the event union: the type was checked against the
      // schemas above and the data is at the version this type is declared with.
      return { type: record.type, data } as Event;
    },
    versionOf: (type) => schemaOf(type).version,
  };
}
