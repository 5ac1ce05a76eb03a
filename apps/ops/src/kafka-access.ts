import { CALLBACKS_CONSUMER_GROUP } from '@mp/callbacks-infrastructure';
import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import { GATEWAY_REPLIES_TOPIC, PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';
import { DISPUTES_CONSUMERS } from '@mp/disputes-infrastructure';
import { LEDGER_PAYMENT_EVENTS_GROUP } from '@mp/ledger-infrastructure';
import { PAYMENTS_CONSUMERS } from '@mp/payments-infrastructure';
import { KafkaMessageBroker, replayPrincipalOf, type KafkaAccess } from '@mp/shared-messaging';
import type { KafkaConnectionConfig } from '@mp/shared-util-config';
import { WITHDRAWALS_CONSUMERS } from '@mp/withdrawals-infrastructure';
import { CATALOG_TOPICS } from '@mp/contracts-topics';

/** Every gateway replica reads its own `gateway.replies.<instance>` topic in a group of the same name. */
const GATEWAY_REPLIES_PREFIX = `${GATEWAY_REPLIES_TOPIC}.`;

/**
 * Each service's Kafka principal (its SASL user, named after the service) and what it may do:
 * read the topics its consumer groups read, write the topics it owns. Only the gateway writes the
 * command topics, so a forged command (a `RequestWithdrawal` naming any merchant) can come from no
 * other pod. The services that answer commands write the gateway's reply topics. The service
 * catalog (deploy/catalog/services.json: consumer groups and `produces`) says the same, and
 * deploy/catalog/catalog.spec.ts checks that the two agree.
 */
export const SERVICE_KAFKA_ACCESS: readonly KafkaAccess[] = [
  {
    principal: 'gateway',
    reads: [],
    groups: [],
    writes: [PAYMENTS_TOPICS.commands, WITHDRAWALS_TOPICS.commands, DISPUTES_TOPICS.commands],
    ownedPrefixes: [GATEWAY_REPLIES_PREFIX],
  },
  {
    principal: 'payments',
    reads: [PAYMENTS_TOPICS.commands, DISPUTES_TOPICS.events],
    groups: [PAYMENTS_CONSUMERS.groupId],
    writes: [PAYMENTS_TOPICS.orderEvents, PAYMENTS_TOPICS.orderProgress],
    writePrefixes: [GATEWAY_REPLIES_PREFIX],
  },
  {
    principal: 'withdrawals',
    reads: [WITHDRAWALS_TOPICS.commands],
    groups: [WITHDRAWALS_CONSUMERS.groupId],
    writes: [WITHDRAWALS_TOPICS.events],
    writePrefixes: [GATEWAY_REPLIES_PREFIX],
  },
  {
    principal: 'disputes',
    reads: [DISPUTES_TOPICS.commands, PAYMENTS_TOPICS.orderEvents, PAYMENTS_TOPICS.orderProgress],
    groups: [DISPUTES_CONSUMERS.groupId],
    writes: [DISPUTES_TOPICS.events],
    writePrefixes: [GATEWAY_REPLIES_PREFIX],
  },
  { principal: 'ledger', reads: [PAYMENTS_TOPICS.orderEvents, WITHDRAWALS_TOPICS.events], groups: [LEDGER_PAYMENT_EVENTS_GROUP], writes: [] },
  {
    principal: 'callbacks',
    reads: [PAYMENTS_TOPICS.orderEvents, WITHDRAWALS_TOPICS.events, DISPUTES_TOPICS.events],
    groups: [CALLBACKS_CONSUMER_GROUP],
    writes: [],
  },
];

/**
 * One replay principal per catalog topic (`npm run dlq -- replay <topic>` runs as it): it reads
 * the topic's dead letters and writes that one topic, so a replay can put nothing anywhere else,
 * whatever a dead letter says. Its consumer groups are the replay's own, not a service's.
 */
export const REPLAY_KAFKA_ACCESS: readonly KafkaAccess[] = CATALOG_TOPICS.map((topic) => ({
  principal: replayPrincipalOf(topic),
  reads: [],
  groups: [],
  writes: [],
  replays: [topic],
}));

/** Every principal's ACLs on the broker, made exactly SERVICE_KAFKA_ACCESS and REPLAY_KAFKA_ACCESS (run as the admin principal). */
export async function grantServiceKafkaAccess(kafka: KafkaConnectionConfig): Promise<string> {
  if (!kafka.kafkaSecurity) return 'skipped: the broker is PLAINTEXT (loopback), it has no principals';
  const broker = new KafkaMessageBroker({
    clientId: 'ops-init',
    brokers: kafka.kafkaBrokers,
    namespace: kafka.kafkaNamespace,
    security: kafka.kafkaSecurity,
    log: () => undefined,
  });
  const accesses = [...SERVICE_KAFKA_ACCESS, ...REPLAY_KAFKA_ACCESS];
  const { created, deleted } = await broker.reconcileAccess(accesses);
  return `${accesses.length} principals: ${created} ACLs created, ${deleted} deleted`;
}
