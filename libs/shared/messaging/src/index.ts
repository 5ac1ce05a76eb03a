export { createEnvelope, parseEnvelope, PoisonMessageError, type MessageEnvelope, type NewEnvelope } from './envelope';
export { classifyError, type ErrorKind } from './error-classification';
export {
  DEFAULT_CONSUMER_ERROR_POLICY,
  MESSAGE_BROKER,
  deadLetterTopicOf,
  type BrokerHealth,
  type ConsumerErrorPolicy,
  type ConsumerGroupHealth,
  type ConsumerGroupState,
  type ConsumerLag,
  type ConsumedMessages,
  type DeadLetter,
  type DeadLetterQueue,
  type DeadLetterReplay,
  type MessageBroker,
  type MessagingStats,
  type BatchHandler,
  type MessageHandler,
  type OutgoingMessage,
  type ReceivedMessage,
  type Subscription,
  type SubscriptionRequest,
  type TopicSpec,
} from './messaging-port';
export {
  KafkaMessageBroker,
  MESSAGE_SCHEMA_VERSION_HEADER,
  MESSAGE_TYPE_HEADER,
  type KafkaBrokerOptions,
  type KafkaClientSecurity,
} from './kafka/kafka-message-broker';
export { aclsOf, replayGroupOf, replayPasswordVariableOf, replayPrincipalOf, type KafkaAccess, type KafkaAclBinding } from './kafka/kafka-access';
export { replayRefusal } from './kafka/kafka-dead-letters';
export {
  MessagingEventHashChain1700000060380,
  MessagingSchema1700000000000,
  MessagingUnreadIndexes1700000030000,
  MessagingOutboxDeletedOnPublish1700000037100,
} from './postgres/messaging-schema.migration';
export { anchorHash, canonicalJson, chainHash, eventDigest, CHAIN_GENESIS, type AnchoredHead } from './postgres/event-chain';
export { anchorClosedDays, ANCHOR_SETTLE_MS, listAnchors, streamHeadBefore, type EventStoreAnchor } from './postgres/event-anchors';
export { verifyEventChain, type ChainFinding, type ChainReader, type ChainVerification } from './postgres/event-chain-audit';
export { appendToStream, readStream, StreamVersionConflictError, StreamVersionMissingError, type StoredStream } from './postgres/event-store';
export { enqueueOutbox, OUTBOX_NOTIFY_CHANNEL, readOutboxBacklog, type OutboxBacklog } from './postgres/outbox';
export { claimInboxMessage } from './postgres/inbox';
export { OutboxRelay, type OutboxRelayOptions } from './postgres/outbox-relay';
export { MessagingModule, messagingOptionsFrom, type KafkaConnectionSettings, type MessagingModuleOptions } from './nest/messaging.module';
export { OUTBOX_RELAY_OPTIONS, OutboxRelayService, type OutboxRelaySettings } from './nest/outbox-relay.service';
export {
  ConsumeTopicInBatches,
  MessagingContext,
  MessagingTransportStrategy,
  type ConsumeTopicOptions,
  type MessagingTransportOptions,
} from './nest/messaging-transport.strategy';
export { commandReplyMessage } from './command-reply';
// The batch side of the inbox and outbox (the one intake in libs/shared/command-handling uses them).
export { claimInboxMessages, claimInboxMessageWithWrites, isInboxMessageClaimed, MessageAlreadyClaimedError } from './postgres/inbox';
export { withOneOutboxWrite } from './postgres/outbox';
// One round trip for a command's writes (docs/decisions/one-round-trip-per-command.md).
export { executeOrDefer, transactionInFewTrips, violatedConstraint, withOneWriteStatement, type WriteFragment } from './postgres/one-write-statement';
