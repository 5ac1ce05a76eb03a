import type { Decider, DomainEvent, EventCodec } from '@mp/shared-decider';
import type { MessageEnvelope } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';

/** One event of a stream as the timeline shows it. */
export interface StreamEventMark {
  version: number;
  type: string;
  recordedAt: Date;
}

/** A stream's state as it stood at an instant, with the events folded to reach it. */
export interface StateAsOf<State> {
  state: State;
  /** The last version folded; 0 when the stream had no event yet. */
  version: number;
  /** When that event was recorded; null when there was none. */
  recordedAt: Date | null;
  /** Every event of the stream, oldest first, the later ones included: a timeline picks its instants from them. */
  events: StreamEventMark[];
}

/**
 * A stream's state at `asOf`: its events recorded at or before the instant, folded through the
 * decider's evolve (the fold the command core uses). The store's `recorded_at` is when the
 * appending transaction began, which a later version may carry earlier than the one before it
 * (it waited for that one's lock): the fold stops at the first event recorded after `asOf`, so
 * the state is always one the stream really went through.
 */
export async function aggregateStreamAsOf<State, Command, Event extends DomainEvent>(
  manager: EntityManager,
  decider: Decider<State, Command, Event>,
  codec: EventCodec<Event>,
  streamId: string,
  asOf: Date,
): Promise<StateAsOf<State>> {
  const rows: Array<{ stream_version: number; envelope: MessageEnvelope; recorded_at: Date }> = await manager.query(
    `SELECT stream_version, envelope, recorded_at FROM event_store WHERE stream_id = $1 ORDER BY stream_version`,
    [streamId],
  );
  const firstLater = rows.findIndex((row) => row.recorded_at.getTime() > asOf.getTime());
  const folded = firstLater === -1 ? rows : rows.slice(0, firstLater);
  const state = folded.reduce((current, row) => decider.evolve(current, codec.read(row.envelope)), decider.initialState());
  const last = folded.at(-1);
  return {
    state,
    version: last?.stream_version ?? 0,
    recordedAt: last?.recorded_at ?? null,
    events: rows.map((row) => ({ version: row.stream_version, type: row.envelope.type, recordedAt: row.recorded_at })),
  };
}

/** The JSON of a read as of an instant, as the back office answers it. */
export interface StateAsOfView<View> {
  as_of: string;
  /** The stream version the state is at; 0 before the first event. */
  version: number;
  recorded_at: string | null;
  /** null before the first event. */
  state: View | null;
  events: Array<{ version: number; type: string; recorded_at: string }>;
}

export function stateAsOfView<State, View>(asOf: Date, read: StateAsOf<State>, view: (state: State) => View | null): StateAsOfView<View> {
  return {
    as_of: asOf.toISOString(),
    version: read.version,
    recorded_at: read.recordedAt?.toISOString() ?? null,
    state: read.version === 0 ? null : view(read.state),
    events: read.events.map((event) => ({ version: event.version, type: event.type, recorded_at: event.recordedAt.toISOString() })),
  };
}
