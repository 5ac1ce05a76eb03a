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

/**
 * What a read says about its variable for the operator's reference (docs/operations/configuration.md,
 * generated from the readers by `npm run config:docs`).
 */
export interface Documented {
  /** One line for the operator: what the variable does, its format. */
  description?: string;
  /** The default as the table shows it, where the value itself is computed (random, derived from another setting) or is not the whole story. */
  defaultText?: string;
}

/** One variable a service reads: its name, its default as the table shows it (Markdown; undefined: required) and its description. */
export interface ConfigVariable {
  name: string;
  default?: string;
  description?: string;
}

/** Code-unit order, the same on every machine (localeCompare follows the locale). */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Where the readers made while describeConfiguration runs note what they read. */
let activeRecorder: Map<string, ConfigVariable> | null = null;

/**
 * Every variable `load` reads, with its default and description: `load` runs once on an empty
 * environment (its ConfigError is expected and dropped). A reader notes each variable as it reads
 * it, so a setting added to a config reader is listed without being named anywhere else. Reads
 * must therefore not depend on other settings' values (a read inside an `if` would be missed).
 */
export function describeConfiguration(load: (environment: Environment) => unknown): ConfigVariable[] {
  const variables = new Map<string, ConfigVariable>();
  const previous = activeRecorder;
  activeRecorder = variables;
  try {
    load({});
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  } finally {
    activeRecorder = previous;
  }
  // Code-unit order, not the locale's: the same table on every machine.
  return [...variables.values()].sort((a, b) => compareText(a.name, b.name));
}

export class ConfigReader {
  private readonly problems: string[] = [];
  private readonly recorder = activeRecorder;

  constructor(private readonly environment: Environment) {}

  /** Notes a read for describeConfiguration; a later read of the same name fills what an earlier one left out. */
  private note(name: string, fallback: string | number | boolean | undefined, documented: Documented): void {
    if (!this.recorder) return;
    const known = this.recorder.get(name);
    const shown = fallback === undefined ? known?.default : fallback === '' ? 'empty' : `\`${String(fallback)}\``;
    this.recorder.set(name, { name, default: documented.defaultText ?? shown, description: documented.description ?? known?.description });
  }

  /** `hint` is added to this variable's error messages (e.g. how to generate a key); `description` is for the operator's table. */
  string(name: string, options: { default?: string; pattern?: RegExp; hint?: string } & Documented = {}): string {
    this.note(name, options.default, options);
    const raw = this.environment[name]?.trim();
    const value = raw === undefined || raw === '' ? options.default : raw;
    if (value === undefined) {
      this.problems.push(`${name} is required${options.hint ? ` (${options.hint})` : ''}`);
      return '';
    }
    if (options.pattern && !options.pattern.test(value)) {
      this.problems.push(`${name} must match ${options.pattern}${options.hint ? ` (${options.hint})` : ''}`);
    }
    return value;
  }

  optionalString(name: string, documented: Documented = {}): string | undefined {
    this.note(name, undefined, { defaultText: 'unset', ...documented });
    const raw = this.environment[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  }

  integer(name: string, options: { default?: number; min?: number; max?: number } & Documented = {}): number {
    this.note(name, options.default, options);
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

  boolean(name: string, defaultValue: boolean, documented: Documented = {}): boolean {
    this.note(name, defaultValue, documented);
    const raw = this.environment[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return defaultValue;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return defaultValue;
  }

  url(name: string, options: { default?: string; protocols?: string[] } & Documented = {}): string {
    const value = this.string(name, { default: options.default, description: options.description, defaultText: options.defaultText });
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
    const base64 = this.string(name, { hint: `base64 of ${bytes} random bytes, e.g. openssl rand -base64 ${bytes}` });
    const key = Buffer.from(base64, 'base64');
    if (base64 !== '' && key.length !== bytes) this.problems.push(`${name} must decode to ${bytes} bytes, got ${key.length}`);
    return key;
  }

  /** One of a fixed set of words, e.g. a format. */
  oneOf<T extends string>(name: string, allowed: readonly T[], defaultValue: T, documented: Documented = {}): T {
    this.note(name, defaultValue, documented);
    const raw = this.environment[name]?.trim();
    if (raw === undefined || raw === '') return defaultValue;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    return defaultValue;
  }

  /** A list separated by commas, e.g. Kafka brokers. */
  list(name: string, options: { default?: string } & Documented = {}): string[] {
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
      (name) =>
        `${name} holds an example value published in this repository, which protects nothing: generate your own (npm run secrets:generate, docs/operations/secrets.md)`,
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
  /** Partitions whose batches one consumer handles at the same time (each in its own transaction, each partition still in order). */
  partitionsConsumedConcurrently: number;
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
  const kafkaBrokers = reader.list('KAFKA_BROKERS', {
    defaultText: 'required (`npm start` sets it)',
    description: '`host:port,...`; when set, `npm start` starts no broker',
  });
  const protocol = reader.oneOf('KAFKA_SECURITY_PROTOCOL', KAFKA_SECURITY_PROTOCOLS, 'PLAINTEXT', {
    description: '`SASL_SSL` (SCRAM over TLS) or `PLAINTEXT`; PLAINTEXT is refused at boot for a broker off loopback ([Kafka security](kafka-security.md))',
  });
  const sasl = protocol === 'SASL_SSL';
  // Read whatever the protocol, so that describeConfiguration lists them; required only with SASL_SSL.
  const saslSettings = {
    mechanism: reader.oneOf('KAFKA_SASL_MECHANISM', KAFKA_SASL_MECHANISMS, 'SCRAM-SHA-512', { description: 'or `SCRAM-SHA-256`' }),
    username: reader.string('KAFKA_SASL_USERNAME', {
      default: sasl ? undefined : '',
      hint: "this service's Kafka principal",
      defaultText: 'required with `SASL_SSL`',
      description: "the service's own Kafka principal (named after the service)",
    }),
    password: reader.string('KAFKA_SASL_PASSWORD', {
      default: sasl ? undefined : '',
      hint: "the password of this service's Kafka principal",
      defaultText: 'required with `SASL_SSL`',
      description: "the password of the service's Kafka principal",
    }),
    caFile:
      reader.optionalString('KAFKA_SSL_CA_FILE', { defaultText: "the system's CAs", description: "PEM file of the CA the broker's certificate chains to" }) ??
      null,
  };
  const config = {
    kafkaBrokers,
    kafkaNamespace: reader.string('KAFKA_NAMESPACE', {
      default: '',
      pattern: /^[a-z0-9._-]*$/,
      description: 'prefix of every topic and group, to share a cluster between environments',
    }),
    commandPartitions: reader.integer('KAFKA_TOPIC_PARTITIONS', {
      default: 6,
      min: 1,
      max: 1000,
      description: 'partitions of command and event topics created at boot',
    }),
    createTopics: reader.boolean('KAFKA_CREATE_TOPICS', true, {
      description:
        'whether a service creates the topics it uses at boot; false where topics are declared elsewhere (Strimzi KafkaTopic resources), and a missing one then stops the boot',
    }),
    partitionsConsumedConcurrently: reader.integer('KAFKA_PARTITIONS_CONSUMED_CONCURRENTLY', {
      default: 3,
      min: 1,
      max: 64,
      description:
        "partitions whose batches a consumer handles at once, each partition still in order; above 1 a batch no longer waits for another partition's commit (bench:hops measures it)",
    }),
    kafkaSecurity: sasl ? saslSettings : null,
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

/** TEST_CLOCK_ENABLED, read alike by every service that has a test clock. */
export function readTestClockEnabled(reader: ConfigReader): boolean {
  return reader.boolean('TEST_CLOCK_ENABLED', false, {
    description:
      "tests only: `POST /internal/test/clock` moves the service's clock (the gateway's on its internal listener, with the service token: secret overlaps and token expiry)",
  });
}

/** LOG_FORMAT, which every service reads the same way. */
export function readLogFormat(reader: ConfigReader): LogFormat {
  return reader.oneOf('LOG_FORMAT', LOG_FORMATS, 'pretty', {
    defaultText: '`pretty` (`json` under `npm start`)',
    description:
      "`json`: pino's JSON lines (see [Logs and traces](logs-and-traces.md#logs-and-traces)), the Kafka client's lines included; `pretty`: the same lines readable, fields as `key=value`",
  });
}
