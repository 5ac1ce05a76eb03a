/** The shape of deploy/local/infra.mjs, for the TypeScript side. */
export interface StartedInfra {
  /** proxiedListener: with kafkaProxiedListener, the extra listener a fault proxy forwards to. */
  kafka: { brokers: string; port: number; proxiedListener: { port: number; advertised: string } | null; stop: () => Promise<void> };
  postgres: { adminUrl: string; stop: () => Promise<void> };
  stop: () => Promise<void>;
}

/** kafkaProxiedListener: a second broker listener that advertises a TCP fault proxy's port (tools/chaos/src/fault-proxy.ts). */
export declare function startInfra(options: {
  mode: 'dev' | 'test';
  log?: (line: string) => void;
  kafkaProxiedListener?: { advertisedPort: number; advertisedHost?: string };
}): Promise<StartedInfra>;
export declare function ensureDatabases(adminUrl: string, names: string[]): Promise<void>;

/** What a client of the secured broker (deploy/local/infra.mjs secured-kafka) needs besides its address. */
export interface SecuredKafkaClientInfo {
  protocol: 'SASL_SSL';
  mechanism: 'SCRAM-SHA-512';
  caFile: string;
  adminUser: string;
  adminPassword: string;
  users: Record<string, string>;
}
