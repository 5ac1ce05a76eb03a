/**
 * Typed, validated configuration read once at boot. Apps describe what they need; a missing
 * or malformed variable stops the process with one message listing every problem, so an
 * operator fixes the deployment in one go instead of one crash per variable.
 */
import { settingsWithPublishedSecrets } from './published-secrets';

export type Environment = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export class ConfigReader {
  private readonly problems: string[] = [];

  constructor(private readonly environment: Environment) {}

  string(name: string, options: { default?: string; pattern?: RegExp; description?: string } = {}): string {
    const raw = this.environment[name]?.trim();
    const value = raw === undefined || raw === '' ? options.default : raw;
    if (value === undefined) {
      this.problems.push(`${name} is required${options.description ? ` (${options.description})` : ''}`);
      return '';
    }
    if (options.pattern && !options.pattern.test(value)) {
      this.problems.push(`${name} must match ${options.pattern}${options.description ? ` (${options.description})` : ''}`);
    }
    return value;
  }

  optionalString(name: string): string | undefined {
    const raw = this.environment[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  }

  integer(name: string, options: { default?: number; min?: number; max?: number } = {}): number {
    const raw = this.environment[name]?.trim();
    if (raw === undefined || raw === '') {
      if (options.default === undefined) this.problems.push(`${name} is required`);
      return options.default ?? 0;
    }
    const value = Number(raw);
    if (!Number.isSafeInteger(value)) {
      this.problems.push(`${name} must be an integer, got "${raw}"`);
      return options.default ?? 0;
    }
    if (options.min !== undefined && value < options.min) this.problems.push(`${name} must be ≥ ${options.min}`);
    if (options.max !== undefined && value > options.max) this.problems.push(`${name} must be ≤ ${options.max}`);
    return value;
  }

  boolean(name: string, defaultValue: boolean): boolean {
    const raw = this.environment[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return defaultValue;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return defaultValue;
  }

  url(name: string, options: { default?: string; protocols?: string[] } = {}): string {
    const value = this.string(name, { default: options.default });
    if (value === '') return value;
    try {
      const parsed = new URL(value);
      const protocols = options.protocols ?? ['http:', 'https:'];
      if (!protocols.includes(parsed.protocol)) this.problems.push(`${name} must use ${protocols.join(' or ')}`);
    } catch {
      this.problems.push(`${name} must be an absolute URL, got "${value}"`);
    }
    return value.replace(/\/+$/, '');
  }

  /** A required secret key given as base64 (e.g. `openssl rand -base64 32`), exactly `bytes` long once decoded. */
  base64Key(name: string, bytes: number): Buffer {
    const base64 = this.string(name, { description: `base64 of ${bytes} random bytes, e.g. openssl rand -base64 ${bytes}` });
    const key = Buffer.from(base64, 'base64');
    if (base64 !== '' && key.length !== bytes) this.problems.push(`${name} must decode to ${bytes} bytes, got ${key.length}`);
    return key;
  }

  /** One of a fixed set of words, e.g. a format. */
  oneOf<T extends string>(name: string, allowed: readonly T[], defaultValue: T): T {
    const raw = this.environment[name]?.trim();
    if (raw === undefined || raw === '') return defaultValue;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    return defaultValue;
  }

  /** A list separated by commas, e.g. Kafka brokers. */
  list(name: string, options: { default?: string } = {}): string[] {
    return this.string(name, options)
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }

  /** Records a problem found by a cross-field check. */
  problem(message: string): void {
    this.problems.push(message);
  }

  /**
   * Throws a ConfigError naming every problem found so far, and every setting that holds a
   * secret this repository published as an example (published-secrets.ts): a service refuses to
   * boot on a key or password anyone can read.
   */
  assertValid(): void {
    const published = settingsWithPublishedSecrets(this.environment).map(
      (name) => `${name} holds an example value published in this repository, which protects nothing: generate your own (npm run secrets:generate, docs/operations/secrets.md)`,
    );
    const problems = [...this.problems, ...published];
    if (problems.length > 0) throw new ConfigError(problems);
  }
}

/** The Kafka settings every service reads the same way. */
export interface KafkaConnectionConfig {
  kafkaBrokers: string[];
  kafkaNamespace: string;
  commandPartitions: number;
  /**
   * Whether a service makes the topics it uses when they are missing (KAFKA_CREATE_TOPICS, on by
   * default: npm start, tests, compose). Off where topics are declared elsewhere (Strimzi
   * KafkaTopic resources on Kubernetes): a missing topic then stops the service at boot, naming it,
   * instead of being made with whatever settings the service knows.
   */
  createTopics: boolean;
  /** SASL over TLS with this service's own principal; null on a loopback PLAINTEXT broker (npm start, tests). */
  kafkaSecurity: KafkaSecurityConfig | null;
}

export const KAFKA_SECURITY_PROTOCOLS = ['PLAINTEXT', 'SASL_SSL'] as const;
export const KAFKA_SASL_MECHANISMS = ['SCRAM-SHA-512', 'SCRAM-SHA-256'] as const;

export interface KafkaSecurityConfig {
  mechanism: (typeof KAFKA_SASL_MECHANISMS)[number];
  username: string;
  password: string;
  /** The CA file (PEM) the broker's certificate chains to; null trusts the system's CAs (a managed Kafka). */
  caFile: string | null;
}

/** 127.0.0.0/8, ::1 and localhost: a broker only this machine can reach. */
const isLoopbackBroker = (broker: string): boolean => /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)(:\d+)?$/i.test(broker);

export function readKafkaConnectionConfig(reader: ConfigReader): KafkaConnectionConfig {
  const kafkaBrokers = reader.list('KAFKA_BROKERS');
  const protocol = reader.oneOf('KAFKA_SECURITY_PROTOCOL', KAFKA_SECURITY_PROTOCOLS, 'PLAINTEXT');
  const config = {
    kafkaBrokers,
    kafkaNamespace: reader.string('KAFKA_NAMESPACE', { default: '', pattern: /^[a-z0-9._-]*$/ }),
    commandPartitions: reader.integer('KAFKA_TOPIC_PARTITIONS', { default: 6, min: 1, max: 1000 }),
    createTopics: reader.boolean('KAFKA_CREATE_TOPICS', true),
    kafkaSecurity:
      protocol === 'SASL_SSL'
        ? {
            mechanism: reader.oneOf('KAFKA_SASL_MECHANISM', KAFKA_SASL_MECHANISMS, 'SCRAM-SHA-512'),
            username: reader.string('KAFKA_SASL_USERNAME', { description: "this service's Kafka principal" }),
            password: reader.string('KAFKA_SASL_PASSWORD', { description: "the password of this service's Kafka principal" }),
            caFile: reader.optionalString('KAFKA_SSL_CA_FILE') ?? null,
          }
        : null,
  };
  if (kafkaBrokers.length === 0) reader.problem('KAFKA_BROKERS must list at least one host:port');
  // There is no switch to run unauthenticated on a network: only a broker on loopback may be PLAINTEXT.
  const remote = kafkaBrokers.filter((broker) => !isLoopbackBroker(broker));
  if (protocol === 'PLAINTEXT' && remote.length > 0) {
    reader.problem(`KAFKA_SECURITY_PROTOCOL must be SASL_SSL for a broker off this machine (${remote.join(', ')}); PLAINTEXT is for a loopback broker only`);
  }
  return config;
}

export const LOG_FORMATS = ['pretty', 'json'] as const;
/** `json`: one JSON object per line, for log files and collectors (what `npm start` writes); `pretty`: Nest's readable lines. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** LOG_FORMAT, which every service reads the same way. */
export function readLogFormat(reader: ConfigReader): LogFormat {
  return reader.oneOf('LOG_FORMAT', LOG_FORMATS, 'pretty');
}
