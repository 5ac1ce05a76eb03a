import type { Decider, DomainEvent, EventCodec } from '@mp/shared-decider';
import {
  appendToStream,
  createEnvelope,
  readStream,
  StreamVersionMissingError,
  transactionInFewTrips,
  withOneWriteStatement,
  type MessageEnvelope,
} from '@mp/shared-messaging';
import type { DataSource, EntityManager } from 'typeorm';
import { DEFAULT_CONFLICT_RETRY_POLICY, retryOnConflict, type ConflictRetryPolicy } from './conflict-retry';

/** The message or request a command came from, recorded on every event it causes. */
export interface Causation {
  id: string;
  correlationId: string;
}

/** A state and the stream version it reflects. */
export interface LoadedState<State> {
  state: State;
  version: number;
  /**
   * The state is the stream's head: a row locked for the command and written in the transaction
   * of every append to its stream, so no event can follow `version`. Nothing is read from the
   * event store then; the append checks in the same statement that the store has `version` (a
   * row ahead of its events is refused), and a row behind it makes the append conflict.
   */
  current?: boolean;
}

export interface StreamReadOptions<State, Event extends DomainEvent> {
  /** Typed conversion and upcasting of stored events, by event type. */
  codec: EventCodec<Event>;
  /**
   * Where the state starts: a snapshot or a locked projection row, with the stream version it
   * reflects. Only the events after that version are read and folded, so a command's cost does
   * not grow with its stream. Without it the state is folded from the whole stream, which is
   * right only for streams whose length is bounded by their own rules.
   */
  loadState?: (manager: EntityManager) => Promise<LoadedState<State>>;
}

/** The state a command was decided on, and how many stored events were read to build it. */
export interface AggregatedStream<State> extends LoadedState<State> {
  eventsRead: number;
}

/** Loads a stream's current state: `loadState` (or the initial state at version 0) plus the events after it. */
export async function aggregateStream<State, Command, Event extends DomainEvent>(
  manager: EntityManager,
  decider: Decider<State, Command, Event>,
  streamId: string,
  options: StreamReadOptions<State, Event>,
): Promise<AggregatedStream<State>> {
  const start: LoadedState<State> = options.loadState ? await options.loadState(manager) : { state: decider.initialState(), version: 0 };
  if (start.current === true && start.version > 0) return { state: start.state, version: start.version, current: true, eventsRead: 0 };
  if (start.version === 0) {
    const stream = await readStream(manager, streamId);
    return { state: fold(decider, options.codec, start.state, stream.events), version: stream.version, eventsRead: stream.events.length };
  }
  // From a snapshot or row at version N: read from N itself, so a state that is ahead of the
  // event store (a projection written without its events) is caught here instead of leaving a
  // gap in the stream at the next append.
  const stream = await readStream(manager, streamId, start.version - 1);
  const [anchor, ...tail] = stream.events;
  if (!anchor || stream.version - stream.events.length + 1 !== start.version) throw new StreamVersionMissingError(streamId, start.version);
  return { state: fold(decider, options.codec, start.state, tail), version: stream.version, eventsRead: stream.events.length };
}

function fold<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
  codec: EventCodec<Event>,
  state: State,
  envelopes: readonly MessageEnvelope[],
): State {
  return envelopes.reduce((current, envelope) => decider.evolve(current, codec.read(envelope)), state);
}

export interface DecidedEvents<State, Event> {
  stateBefore: State;
  events: Event[];
  /** The state after the events. */
  state: State;
}

export interface AppendedEvents<State, Event> extends DecidedEvents<State, Event> {
  streamId: string;
  /** Each event as stored, in the same order. */
  envelopes: MessageEnvelope[];
  versionBefore: number;
  /** The stream version after the last event. */
  version: number;
}

export interface HandleCommandOptions<State, Event extends DomainEvent> extends StreamReadOptions<State, Event> {
  /**
   * Either the caller's transaction, which the command joins (a version conflict then reaches
   * the caller, who retries its whole transaction with `retryOnConflict`), or a DataSource on
   * which the command runs in a transaction of its own, retried on conflict by `retry`.
   */
  transaction: { manager: EntityManager } | { dataSource: DataSource; retry?: ConflictRetryPolicy };
  /** Envelope fields of the stored events. */
  envelope: { source: string; subject: string; causation: Causation };
  /** Runs after deciding, before anything is written; throwing refuses the command. Not called when there are no events. */
  beforeAppend?: (manager: EntityManager, decided: DecidedEvents<State, Event>) => Promise<void>;
  /** Projections and outbox writes, in the same transaction as the append. Not called when there are no events. */
  afterAppend?: (manager: EntityManager, appended: AppendedEvents<State, Event>) => Promise<void>;
}

export interface CommandResult<State, Event> {
  /** The state after the command (the current one when it was a repeat). */
  state: State;
  /** Empty when the command changed nothing. */
  events: Event[];
  envelopes: MessageEnvelope[];
  version: number;
  /** Stored events read to build the state the command was decided on. */
  eventsRead: number;
}

/**
 * The one way a command is handled (emmett's `handleCommand`): load the state, decide, append
 * at the expected version (the event store's unique (stream, version) refuses a concurrent
 * writer), run the hooks in the same transaction. A DomainError from the decider or a hook
 * leaves nothing written. The append, the projections and the outbox rows are one statement
 * (withOneWriteStatement; in a transaction of its own, transactionInFewTrips).
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
  streamId: string,
  command: Command,
  options: HandleCommandOptions<State, Event>,
): Promise<CommandResult<State, Event>> {
  const { transaction } = options;
  // The append, the projections and the outbox rows of the command go as one statement.
  if ('manager' in transaction)
    return withOneWriteStatement(transaction.manager, () => handleInTransaction(transaction.manager, decider, streamId, command, options));
  return retryOnConflict(transaction.retry ?? DEFAULT_CONFLICT_RETRY_POLICY, () =>
    transactionInFewTrips(transaction.dataSource, (manager) => handleInTransaction(manager, decider, streamId, command, options)),
  );
}

async function handleInTransaction<State, Command, Event extends DomainEvent>(
  manager: EntityManager,
  decider: Decider<State, Command, Event>,
  streamId: string,
  command: Command,
  options: HandleCommandOptions<State, Event>,
): Promise<CommandResult<State, Event>> {
  const loaded = await aggregateStream(manager, decider, streamId, options);
  const events = decider.decide(command, loaded.state);
  if (events.length === 0) return { state: loaded.state, events, envelopes: [], version: loaded.version, eventsRead: loaded.eventsRead };

  const decided: DecidedEvents<State, Event> = {
    stateBefore: loaded.state,
    events,
    state: events.reduce((state, event) => decider.evolve(state, event), loaded.state),
  };
  await options.beforeAppend?.(manager, decided);
  const { source, subject, causation } = options.envelope;
  const envelopes = events.map((event) =>
    createEnvelope({
      type: event.type,
      schemaVersion: options.codec.versionOf(event.type),
      source,
      subject,
      data: event.data,
      correlationId: causation.correlationId,
      causationId: causation.id,
    }),
  );
  const version = await appendToStream(manager, streamId, loaded.version, envelopes);
  await options.afterAppend?.(manager, { ...decided, streamId, envelopes, versionBefore: loaded.version, version });
  return { state: decided.state, events, envelopes, version, eventsRead: loaded.eventsRead };
}
