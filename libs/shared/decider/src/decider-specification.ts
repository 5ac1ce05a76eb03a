import assert from 'node:assert/strict';
import { DomainError, type ErrorCode } from '@mp/shared-util-errors';
import type { Decider, DomainEvent } from './decider';

/**
 * Given/when/then over a decider, for specs (emmett's `DeciderSpecification`):
 *
 *   const spec = DeciderSpecification.for(decider);
 *   spec.given([created]).when(cancel).then([cancelled]);
 *   spec.givenCommands(create, assign).when(cancel).thenThrows('ORDER_NOT_CANCELLABLE', 'status');
 *
 * `givenCommands` reaches the state by deciding and evolving each command in turn, as the
 * service would, so a spec can only start from a state the aggregate can really reach.
 * Assertions use node:assert, so a failure shows the difference whatever runs the spec.
 */
export class DeciderSpecification<State, Command, Event extends DomainEvent> {
  private constructor(
    private readonly decider: Decider<State, Command, Event>,
    private readonly options: SpecificationOptions<Event>,
  ) {}

  static for<State, Command, Event extends DomainEvent>(
    decider: Decider<State, Command, Event>,
    options: SpecificationOptions<Event> = {},
  ): DeciderSpecification<State, Command, Event> {
    return new DeciderSpecification(decider, options);
  }

  /** The state these events lead to from the initial state. */
  given(events: readonly Event[]): Given<State, Command, Event> {
    return new Given(
      this.decider,
      this.options,
      events.reduce((state, event) => this.decider.evolve(state, event), this.decider.initialState()),
    );
  }

  /** The state these commands lead to, each decided and evolved in turn. */
  givenCommands(...commands: Command[]): Given<State, Command, Event> {
    const state = commands.reduce(
      (current, command) => this.decider.decide(command, current).reduce((next, event) => this.decider.evolve(next, event), current),
      this.decider.initialState(),
    );
    return new Given(this.decider, this.options, state);
  }
}

export interface SpecificationOptions<Event> {
  /** Runs on every decision's events before they are evolved, e.g. a check that the books balance. */
  checkEvents?: (events: Event[]) => void;
}

export interface Outcome<State, Event> {
  events: Event[];
  /** The state after the events. */
  state: State;
}

export class Given<State, Command, Event extends DomainEvent> {
  constructor(
    private readonly decider: Decider<State, Command, Event>,
    private readonly options: SpecificationOptions<Event>,
    private readonly current: State,
  ) {}

  state(): State {
    return this.current;
  }

  when(command: Command): When<State, Command, Event> {
    return new When(this.decider, this.options, this.current, command);
  }
}

export class When<State, Command, Event extends DomainEvent> {
  constructor(
    private readonly decider: Decider<State, Command, Event>,
    private readonly options: SpecificationOptions<Event>,
    private readonly state: State,
    private readonly command: Command,
  ) {}

  /** Decides without asserting the events, for specs that look at the outcome's state. */
  outcome(): Outcome<State, Event> {
    const events = this.decider.decide(this.command, this.state);
    this.options.checkEvents?.(events);
    return { events, state: events.reduce((state, event) => this.decider.evolve(state, event), this.state) };
  }

  /** Asserts exactly these events; returns them with the state they lead to. */
  then(expected: readonly Event[]): Outcome<State, Event> {
    const outcome = this.outcome();
    assert.deepStrictEqual(outcome.events, expected);
    return outcome;
  }

  /** A repeat or a no-op: no events, the state unchanged. */
  thenNothingHappens(): Outcome<State, Event> {
    return this.then([]);
  }

  /** Asserts a business refusal with this code, naming at least these fields in its details. */
  thenThrows(code: ErrorCode, ...fields: string[]): DomainError {
    const error = this.thrown();
    assert.ok(error instanceof DomainError, `expected a DomainError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`);
    const named = error.details.map((detail) => detail.field);
    for (const field of fields) assert.ok(named.includes(field), `expected ${code} to name ${field}, it names ${named.join(', ') || 'nothing'}`);
    return error;
  }

  /** Asserts a broken invariant (a bug upstream, not a business refusal) whose message contains this text. */
  thenBreaksInvariant(messagePart: string): Error {
    const error = this.thrown();
    assert.ok(!(error instanceof DomainError), `expected a broken invariant, got the business refusal ${String(error)}`);
    assert.ok(error instanceof Error && error.message.includes(messagePart), `expected an error containing "${messagePart}", got ${String(error)}`);
    return error;
  }

  private thrown(): unknown {
    try {
      this.decider.decide(this.command, this.state);
    } catch (error) {
      return error;
    }
    assert.fail('expected the decider to throw, it decided');
  }
}
