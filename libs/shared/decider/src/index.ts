export type { Decider, DomainEvent } from './decider';
export { eventCodec, UnreadableEventError, type EventCodec, type EventSchemas, type EventTypeSchema, type StoredEventRecord } from './event-schemas';
export { DeciderSpecification, Given, When, type Outcome, type SpecificationOptions } from './decider-specification';
export {
  eventCatalogueTable,
  eventVersionChecks,
  eventVersionGaps,
  replayEventVersionFixture,
  type EventVersionCheckOptions,
  type EventVersionFixture,
  type StreamFold,
} from './event-versions';
