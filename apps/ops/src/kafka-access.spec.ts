import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { aclsOf, deadLetterTopicOf, replayPasswordVariableOf, type KafkaAccess } from '@mp/shared-messaging';
import { REPLAY_KAFKA_ACCESS, SERVICE_KAFKA_ACCESS } from './kafka-access';
import { CATALOG_TOPICS, topicsUsedBy, type TopicUser } from '@mp/contracts-topics';

interface CatalogService {
  name: string;
  consumerGroups: Array<{ id: string; topics: string[] }>;
  produces: string[];
}
const catalog = JSON.parse(readFileSync(join(resolve(__dirname, '../../..'), 'deploy/catalog/services.json'), 'utf8')) as { services: CatalogService[] };
const PER_REPLICA = '<instance>';
const accessOf = (principal: string): KafkaAccess => {
  const access = SERVICE_KAFKA_ACCESS.find((candidate) => candidate.principal === principal);
  if (!access) throw new Error(`no Kafka access for ${principal}`);
  return access;
};

describe('Kafka access of each service principal', () => {
  it('has one principal per catalog service, named after it', () => {
    expect(SERVICE_KAFKA_ACCESS.map(({ principal }) => principal).sort()).toEqual(catalog.services.map(({ name }) => name).sort());
  });

  it.each(catalog.services.map((service) => [service.name, service] as const))('%s: reads, groups and writes are the catalog’s', (_name, service) => {
    const access: KafkaAccess | undefined = SERVICE_KAFKA_ACCESS.find((candidate) => candidate.principal === service.name);
    const owned = (name: string) => name.endsWith(PER_REPLICA) && (access?.ownedPrefixes ?? []).includes(name.slice(0, -PER_REPLICA.length));
    expect({
      reads: [...(access?.reads ?? [])].sort(),
      groups: [...(access?.groups ?? [])].sort(),
      writes: [...(access?.writes ?? []), ...(access?.writePrefixes ?? []).map((prefix) => `${prefix}${PER_REPLICA}`)].sort(),
    }).toEqual({
      reads: service.consumerGroups
        .flatMap(({ topics }) => topics)
        .filter((topic) => !owned(topic))
        .sort(),
      groups: service.consumerGroups
        .map(({ id }) => id)
        .filter((id) => !owned(id))
        .sort(),
      writes: [...service.produces].sort(),
    });
  });

  it('lets the gateway alone write the command topics', () => {
    const commandTopics = ['payments.commands', 'withdrawals.commands', 'disputes.commands'];
    const writers = (topic: string) =>
      SERVICE_KAFKA_ACCESS.flatMap((access) => aclsOf(access, 'ns', deadLetterTopicOf))
        .filter(({ operation, name, pattern }) => operation === 'write' && (pattern === 'literal' ? name === `ns.${topic}` : `ns.${topic}`.startsWith(name)))
        .map(({ principal }) => principal);
    expect(Object.fromEntries(commandTopics.map((topic) => [topic, writers(topic)]))).toEqual(
      Object.fromEntries(commandTopics.map((topic) => [topic, ['User:gateway']])),
    );
  });

  it('makes the ACLs in the namespace: read with the dead-letter write, the group, describe on the namespace only', () => {
    const ledger = aclsOf(accessOf('ledger'), 'prod', deadLetterTopicOf);
    expect(ledger).toEqual(
      expect.arrayContaining([
        { principal: 'User:ledger', resource: 'topic', name: 'prod.', pattern: 'prefixed', operation: 'describe' },
        { principal: 'User:ledger', resource: 'topic', name: 'prod.payments.order.events', pattern: 'literal', operation: 'read' },
        { principal: 'User:ledger', resource: 'topic', name: 'prod.payments.order.events.dlq', pattern: 'literal', operation: 'write' },
        { principal: 'User:ledger', resource: 'group', name: 'prod.ledger.payment-events', pattern: 'literal', operation: 'read' },
      ]),
    );
    expect(
      ledger
        .filter(({ operation }) => operation === 'write')
        .map(({ name }) => name)
        .sort(),
    ).toEqual(['prod.payments.order.events.dlq', 'prod.withdrawals.events.dlq']);
    // Without a namespace, describe is on every topic (the literal '*'); nothing else widens.
    expect(aclsOf(accessOf('ledger'), '', deadLetterTopicOf).filter(({ name }) => name === '*')).toEqual([
      { principal: 'User:ledger', resource: 'topic', name: '*', pattern: 'literal', operation: 'describe' },
    ]);
  });

  it('makes at boot exactly the catalogue topics each service may read or write (libs/contracts/topics)', () => {
    for (const access of SERVICE_KAFKA_ACCESS) {
      const granted = [...access.reads, ...access.writes].filter((topic) => CATALOG_TOPICS.includes(topic));
      expect([access.principal, topicsUsedBy(access.principal as TopicUser).sort()]).toEqual([access.principal, [...new Set(granted)].sort()]);
    }
  });

  it('has one replay principal per catalog topic, which reads its dead letters and writes that topic only', () => {
    expect(REPLAY_KAFKA_ACCESS.map(({ principal, replays }) => [principal, replays])).toEqual(
      CATALOG_TOPICS.map((topic) => [`dlq-replay-${topic.replaceAll('.', '-')}`, [topic]]),
    );
    const replay = aclsOf(
      REPLAY_KAFKA_ACCESS.find(({ principal }) => principal === 'dlq-replay-payments-order-events') as KafkaAccess,
      'prod',
      deadLetterTopicOf,
    );
    expect(replay.filter(({ operation }) => operation !== 'describe')).toEqual([
      { principal: 'User:dlq-replay-payments-order-events', resource: 'topic', name: 'prod.payments.order.events.dlq', pattern: 'literal', operation: 'read' },
      {
        principal: 'User:dlq-replay-payments-order-events',
        resource: 'group',
        name: 'prod.dlq-replay.payments.order.events',
        pattern: 'literal',
        operation: 'read',
      },
      { principal: 'User:dlq-replay-payments-order-events', resource: 'topic', name: 'prod.payments.order.events', pattern: 'literal', operation: 'write' },
    ]);
    expect(replayPasswordVariableOf('payments.order.events')).toBe('DLQ_REPLAY_PAYMENTS_ORDER_EVENTS_KAFKA_PASSWORD');
  });
});
