import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import { PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';

/** The services that read or write the platform's topics. */
export type TopicUser = 'gateway' | 'payments' | 'withdrawals' | 'disputes' | 'ledger' | 'callbacks';

/**
 * The topic catalogue: every topic of the platform but the gateway replicas' own reply topics
 * (gatewayReplyTopicOf), with the services that use it. deploy/catalog/services.json lists the
 * same topics for operators (apps/ops/src/provision.int.spec.ts holds the two together).
 */
export const TOPIC_CATALOGUE: Readonly<Record<string, readonly TopicUser[]>> = {
  [PAYMENTS_TOPICS.commands]: ['gateway', 'payments'],
  [PAYMENTS_TOPICS.orderEvents]: ['payments', 'ledger', 'disputes', 'callbacks'],
  [PAYMENTS_TOPICS.orderProgress]: ['payments', 'disputes'],
  [WITHDRAWALS_TOPICS.commands]: ['gateway', 'withdrawals'],
  [WITHDRAWALS_TOPICS.events]: ['withdrawals', 'ledger', 'callbacks'],
  [DISPUTES_TOPICS.commands]: ['gateway', 'disputes'],
  // payments reads the disputes' external events (the order overlay, settlement by dispute) and answers on its own topic.
  [DISPUTES_TOPICS.events]: ['disputes', 'payments', 'callbacks'],
};

/** Every topic of the catalogue. */
export const CATALOG_TOPICS: readonly string[] = Object.keys(TOPIC_CATALOGUE);

/** The catalogue's topics one service reads or writes. */
export function topicsUsedBy(service: TopicUser): string[] {
  return CATALOG_TOPICS.filter((topic) => TOPIC_CATALOGUE[topic]?.includes(service));
}

/** A topic to make: the messaging port's TopicSpec (libs/shared/messaging). */
export interface TopicToMake {
  topic: string;
  partitions: number;
  retentionMs?: number;
}

/** What makes topics: the messaging port's `ensureTopics`. */
export interface TopicMaker {
  ensureTopics(topics: TopicToMake[]): Promise<void>;
}

/**
 * The one way topics are made: a service at boot makes those of the catalogue it uses
 * (`ensureCatalogTopics(broker, 'ledger', partitions)`), `ops provision` all of them (`'all'`).
 * Each comes with its dead-letter topic; an existing one is left as it is, and with
 * KAFKA_CREATE_TOPICS=false a missing one stops the boot instead. `also`: topics outside the
 * catalogue made in the same call (a gateway replica's reply topic).
 */
export function ensureCatalogTopics(broker: TopicMaker, user: TopicUser | 'all', partitions: number, also: TopicToMake[] = []): Promise<void> {
  const topics = user === 'all' ? CATALOG_TOPICS : topicsUsedBy(user);
  return broker.ensureTopics([...topics.map((topic) => ({ topic, partitions })), ...also]);
}
