// The broker adapter's options, and kafkajs's security settings made from them.
import { readFileSync } from 'node:fs';
import type { KafkaConfig } from 'kafkajs';
import type { BrokerLogLevel } from './kafka-log';

export interface KafkaBrokerOptions {
  clientId: string;
  brokers: string[];
  /** Prepended to every topic and group id, so several environments can share one cluster. */
  namespace: string;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Consumer group session and heartbeat; the defaults are CONSUMER_SESSION_TIMEOUT_MS and CONSUMER_HEARTBEAT_INTERVAL_MS. */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Where this adapter's and the kafkajs client's own lines go (default: the console). */
  log?: (level: BrokerLogLevel, message: string) => void;
  /** SASL over TLS as this principal; absent or null: PLAINTEXT (a loopback broker). */
  security?: KafkaClientSecurity | null;
  /**
   * false: ensureTopics only checks that the topics and their dead-letter topics exist and fails
   * naming the missing ones, never creating one (topics declared as Strimzi KafkaTopics). Default true.
   */
  createTopics?: boolean;
  /** Partitions whose batches a consumer handles at once (kafkajs keeps each partition in order); default 1. */
  partitionsConsumedConcurrently?: number;
}

/** The same shape as the services' KafkaSecurityConfig (@mp/shared-util-config). */
export interface KafkaClientSecurity {
  mechanism: 'SCRAM-SHA-512' | 'SCRAM-SHA-256';
  username: string;
  password: string;
  /** PEM file of the CA the broker's certificate chains to; null: the system's CAs. */
  caFile: string | null;
}

/** kafkajs's `ssl` and `sasl` for a principal; the CA file is read once, at boot, so a bad path stops the service there. */
export function kafkajsSecurity(security: KafkaClientSecurity | null | undefined): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  if (!security) return {};
  let ca: string | undefined;
  if (security.caFile) {
    try {
      ca = readFileSync(security.caFile, 'utf8');
    } catch (error) {
      throw new Error(`KAFKA_SSL_CA_FILE ${security.caFile} cannot be read: ${(error as Error).message}`);
    }
  }
  const { username, password } = security;
  const sasl =
    security.mechanism === 'SCRAM-SHA-256'
      ? { mechanism: 'scram-sha-256' as const, username, password }
      : { mechanism: 'scram-sha-512' as const, username, password };
  return { ssl: ca ? { ca: [ca] } : true, sasl };
}
