import { ConfigReader, type Environment } from '@mp/shared-util-config';

export interface PaymentsConfig {
  httpHost: string;
  httpPort: number;
  databaseUrl: string;
  databasePoolMax: number;
  kafkaBrokers: string[];
  kafkaNamespace: string;
  publicBaseUrl: string;
  commandPartitions: number;
  crashAfterCommitOf: string | null;
}

/** Reads and validates the payments service's environment once, at boot. */
export function loadPaymentsConfig(environment: Environment): PaymentsConfig {
  const reader = new ConfigReader(environment);
  const config: PaymentsConfig = {
    httpHost: reader.string('PAYMENTS_HTTP_HOST', { default: '127.0.0.1' }),
    httpPort: reader.integer('PAYMENTS_HTTP_PORT', { default: 3001, min: 0, max: 65535 }),
    databaseUrl: reader.url('PAYMENTS_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'] }),
    databasePoolMax: reader.integer('PAYMENTS_DATABASE_POOL_MAX', { default: 10, min: 1, max: 200 }),
    kafkaBrokers: reader.list('KAFKA_BROKERS'),
    kafkaNamespace: reader.string('KAFKA_NAMESPACE', { default: '', pattern: /^[a-z0-9._-]*$/ }),
    publicBaseUrl: reader.url('PUBLIC_BASE_URL', { default: 'http://127.0.0.1:3000' }),
    commandPartitions: reader.integer('KAFKA_TOPIC_PARTITIONS', { default: 6, min: 1, max: 1000 }),
    crashAfterCommitOf: reader.optionalString('FAULT_CRASH_AFTER_COMMIT_OF') ?? null,
  };
  if (config.kafkaBrokers.length === 0) reader.problem('KAFKA_BROKERS must list at least one host:port');
  reader.assertValid();
  return config;
}
