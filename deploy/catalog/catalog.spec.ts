/**
 * Goal: the service catalog (deploy/catalog/services.json) and the code cannot drift apart.
 * For every service it lists: the launcher (`npm start`) and the test harness take their
 * service list from it, the app's config reads <NAME>_HTTP_PORT with the catalog's dev port as
 * its default and <NAME>_DATABASE_URL, the consumer group ids are the ones the code joins, and
 * each group's topics are the ones its @ConsumeTopic handlers name. The catalog's topics are the
 * contracts' topics, and the default partition count is the one the shared Kafka config reads.
 * Method: the contracts and consumer options are imported; the few facts that only exist as
 * source text (config readers, decorators) are read from the files the catalog names.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CALLBACKS_CONSUMER_GROUP } from '@mp/callbacks-infrastructure';
import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import { GATEWAY_REPLIES_TOPIC, PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';
import { CATALOG_TOPICS } from '@mp/contracts-topics';
import { DISPUTES_CONSUMERS } from '@mp/disputes-infrastructure';
import { LEDGER_PAYMENT_EVENTS_GROUP } from '@mp/ledger-infrastructure';
import { PAYMENTS_CONSUMERS } from '@mp/payments-infrastructure';
import { WITHDRAWALS_CONSUMERS } from '@mp/withdrawals-infrastructure';

interface CatalogService {
  name: string;
  entry: string;
  config: string;
  devPort: number;
  database: string;
  health: { live: string; ready: string };
  consumerGroups: Array<{ id: string; topics: string[] }>;
}
interface Catalog {
  kafka: { partitionsVariable: string; defaultPartitions: number };
  topics: Array<{ name: string; owner: string; partitions: 'default' | 'reply' }>;
  services: CatalogService[];
}

const repositoryRoot = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(repositoryRoot, path), 'utf8');
const catalog = JSON.parse(read('deploy/catalog/services.json')) as Catalog;
const envPrefix = (name: string) => name.toUpperCase().replaceAll('-', '_');
const REPLY_TOPIC = `${GATEWAY_REPLIES_TOPIC}.<instance>`;

/** Every `NAME_TOPICS.key` the code can name in a decorator, by that text. */
const topicConstants: Record<string, string> = Object.fromEntries(
  Object.entries({ PAYMENTS_TOPICS, WITHDRAWALS_TOPICS, DISPUTES_TOPICS }).flatMap(([constant, topics]) =>
    Object.entries(topics).map(([key, topic]) => [`${constant}.${key}`, topic]),
  ),
);

function sourceFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFilesUnder(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The topics a context's @ConsumeTopic / @ConsumeTopicInBatches handlers name. */
function consumedTopicsOf(context: string): string[] {
  const topics = new Set<string>();
  for (const file of sourceFilesUnder(join(repositoryRoot, 'libs', context, 'infrastructure/src'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(/@ConsumeTopic(?:InBatches)?\(([A-Z_]+\.[A-Za-z]+)[,)]/g)) {
      const topic = topicConstants[match[1]];
      if (!topic) throw new Error(`${file} consumes ${match[1]}, which is no contracts topic`);
      topics.add(topic);
    }
  }
  return [...topics].sort();
}

describe('service catalog (deploy/catalog/services.json)', () => {
  it('lists exactly the topics of the contracts, plus one reply topic per gateway replica', () => {
    const contractTopics = [...Object.values(PAYMENTS_TOPICS), ...Object.values(WITHDRAWALS_TOPICS), ...Object.values(DISPUTES_TOPICS), REPLY_TOPIC];
    expect(catalog.topics.map(({ name }) => name).sort()).toEqual(contractTopics.sort());
  });

  it('has the default partition count the shared Kafka config reads', () => {
    const config = read('libs/shared/util-config/src/config.ts');
    const reader = new RegExp(`reader\\.integer\\(\\s*'${catalog.kafka.partitionsVariable}',\\s*\\{\\s*default: (\\d+)`).exec(config);
    expect(Number(reader?.[1])).toBe(catalog.kafka.defaultPartitions);
  });

  it('has the partition counts the code creates topics with', () => {
    const kafka = catalog.kafka as Catalog['kafka'] & { deadLetterPartitions: number; replyTopicPartitions: number };
    expect(read('libs/shared/messaging/src/kafka/kafka-topic-admin.ts')).toContain(
      `{ topic: deadLetterTopicOf(spec.topic), partitions: ${kafka.deadLetterPartitions} }`,
    );
    expect(read('libs/gateway/api/src/commands/service-command.bus.ts')).toContain(`{ topic: this.replyTopic, partitions: ${kafka.replyTopicPartitions},`);
    // Every other topic is made by the one function of the topic catalogue (libs/contracts/topics), with the configured count (KAFKA_TOPIC_PARTITIONS).
    expect(read('libs/contracts/topics/src/index.ts')).toContain('topics.map((topic) => ({ topic, partitions }))');
    const creations = ['payments', 'withdrawals', 'disputes', 'ledger', 'callbacks', 'gateway']
      .flatMap((context) => sourceFilesUnder(join(repositoryRoot, 'libs', context)))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/ensureCatalogTopics\(this\.broker, '([a-z]+)', ([^,)]+)/g)].map((match) => ({
          service: match[1],
          partitions: match[2],
        })),
      );
    expect(creations.map(({ service }) => service).sort()).toEqual(catalog.services.map(({ name }) => name).sort());
    for (const { service, partitions } of creations) {
      // The dispatcher names the same KAFKA_TOPIC_PARTITIONS setting topicPartitions.
      expect({ service, partitions }).toEqual({
        service,
        partitions: service === 'callbacks' ? 'this.settings.topicPartitions' : 'this.settings.commandPartitions',
      });
    }
    for (const topic of CATALOG_TOPICS)
      expect({ topic, catalogued: catalog.topics.find(({ name }) => name === topic)?.partitions }).toEqual({ topic, catalogued: 'default' });
  });

  it('names the consumer group ids the code joins', () => {
    const groups = Object.fromEntries(catalog.services.map(({ name, consumerGroups }) => [name, consumerGroups.map(({ id }) => id)]));
    expect(groups).toEqual({
      ledger: [LEDGER_PAYMENT_EVENTS_GROUP],
      disputes: [DISPUTES_CONSUMERS.groupId],
      payments: [PAYMENTS_CONSUMERS.groupId],
      withdrawals: [WITHDRAWALS_CONSUMERS.groupId],
      // Each gateway replica reads only its own reply topic, in a group named after it.
      gateway: [REPLY_TOPIC],
      callbacks: [CALLBACKS_CONSUMER_GROUP],
    });
  });

  it.each(catalog.services.filter(({ name }) => name !== 'gateway').map((service) => [service.name, service] as const))(
    '%s: each consumer group reads the topics its handlers name',
    (name, service) => {
      const catalogued = service.consumerGroups.flatMap(({ topics }) => topics).sort();
      expect(catalogued).toEqual(consumedTopicsOf(name));
    },
  );

  it.each(catalog.services.map((service) => [service.name, service] as const))(
    '%s: the app reads its dev port, database and entry point as catalogued',
    (name, service) => {
      const config = read(service.config);
      const port = new RegExp(`reader\\.integer\\('${envPrefix(name)}_HTTP_PORT', \\{ default: (\\d+)`).exec(config);
      expect(Number(port?.[1])).toBe(service.devPort);
      expect(config).toContain(`'${envPrefix(service.database)}_DATABASE_URL'`);
      expect(statSync(join(repositoryRoot, service.entry)).isFile()).toBe(true);
    },
  );

  it('gives every service its own dev port and database', () => {
    expect(new Set(catalog.services.map(({ devPort }) => devPort)).size).toBe(catalog.services.length);
    expect(new Set(catalog.services.map(({ database }) => database)).size).toBe(catalog.services.length);
  });

  it('is where `npm start` and the test harness take their service list from (no list of their own)', () => {
    for (const launcher of ['deploy/local/start.mjs', 'libs/shared/testing/src/system-under-test.ts']) {
      // npm start's launcher is start.mjs with its parts in deploy/local/start/.
      const parts =
        launcher === 'deploy/local/start.mjs' ? readdirSync(join(repositoryRoot, 'deploy/local/start')).map((file) => `deploy/local/start/${file}`) : [];
      const source = [launcher, ...parts].map(read).join('\n');
      expect({ launcher, readsCatalog: source.includes('deploy/catalog/services.json') || source.includes('/catalog/catalog.mjs') }).toEqual({
        launcher,
        readsCatalog: true,
      });
      for (const { entry } of catalog.services) expect({ launcher, entry, listed: source.includes(entry) }).toEqual({ launcher, entry, listed: false });
    }
  });

  it('is where the launchers take the health path they wait for', () => {
    for (const launcher of ['deploy/local/supervisor.mjs', 'libs/shared/testing/src/system-under-test.ts']) {
      expect({ launcher, hardCodedHealthPath: /\}\/health/.test(read(launcher)) }).toEqual({ launcher, hardCodedHealthPath: false });
    }
  });

  it.each(catalog.services.map((service) => [service.name, service] as const))(
    '%s: has a scaling page, linked from docs/README.md, that names its consumer groups',
    (name, service) => {
      const page = `docs/operations/${name}.md`;
      expect(read('docs/README.md')).toContain(`](operations/${name}.md)`);
      const text = read(page);
      for (const { id } of service.consumerGroups) expect({ page, group: id, named: text.includes(`\`${id}\``) }).toEqual({ page, group: id, named: true });
    },
  );
});
