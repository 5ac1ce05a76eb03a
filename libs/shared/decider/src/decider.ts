/**
 * An aggregate as a value (emmett's `Decider`): `decide` turns a command and the current state
 * into the events it causes (none for a repeat), `evolve` applies one event, `initialState` is
 * the state of a stream with no events. All three are pure, so the command core can load the
 * state any way it likes (from the stream, or from a locked row plus the events after it) and
 * specs can run them as plain functions.
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

/** What every domain event looks like: a stable type name and its JSON data. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
}
