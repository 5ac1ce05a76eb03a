export { commandRegistry, type CommandFiles, type CommandRegistry, type WireCommand } from './command-registry';
export { DEFAULT_CONFLICT_RETRY_POLICY, retryOnConflict, type ConflictRetryPolicy } from './conflict-retry';
export {
  aggregateStream,
  handleCommand,
  type AggregatedStream,
  type AppendedEvents,
  type Causation,
  type CommandResult,
  type DecidedEvents,
  type HandleCommandOptions,
  type LoadedState,
  type StreamReadOptions,
} from './handle-command';
export { readEventPayload, type EventContract } from './event-payload';
export { PeriodicTask } from './periodic-task';
export {
  assertValidCommand,
  CommandIntake,
  merchantLaneOf,
  MessageIntake,
  type CommandContract,
  type CommandIntakeDefinition,
  type MessageIntakeDefinition,
  type PayloadClass,
  type ReadCommand,
  type ReadMessage,
} from './message-intake';
export { type ReplyPort } from './reply-sender';
export { EventStoreAnchoring } from './event-store-anchoring';
export { InternalEventAnchorsController, type EventAnchorsPage } from './internal-event-anchors.controller';
export {
  deciderFolder,
  qualifiedTable,
  rebuildProjection,
  shadowSchemaOf,
  type FolderContext,
  type ProjectionDifference,
  type ProjectionTable,
  type RebuildableProjection,
  type RebuildOptions,
  type RebuildReport,
  type StoredEvent,
  type StreamFolder,
} from './projection-rebuild';
export { aggregateStreamAsOf, stateAsOfView, type StateAsOf, type StateAsOfView, type StreamEventMark } from './stream-as-of';
