/**
 * The chaos runner's faults (docs/operations/chaos.md). A fault is a value: what it breaks
 * (`inject`), how it is undone (`heal`), how long the outage is held open in between, and how
 * soon the load must succeed again. The runner's loop (run-chaos.ts) knows nothing about any
 * kind: another kind (the TCP fault proxy's latency and dropped connections, the callback
 * sink's) is another array of ChaosFault handed to the same loop.
 */
import { Client } from 'pg';
import type { InstanceName, ServiceName, SystemUnderTest } from '@mp/shared-testing';

/** The private infrastructure of a run (deploy/local/infra.mjs startInfra, with pause/resume). */
export interface ChaosInfra {
  kafka: {
    /** host:port the services connect to, unless a fault routes them elsewhere (see ChaosContext.env). */
    brokers: string;
    port: number;
    /**
     * The broker's second listener, which advertises the Kafka fault proxy (startInfra's
     * kafkaProxiedListener): the proxy forwards to this port. Null when the broker has none.
     */
    proxiedListener?: { port: number } | null;
    /** Stops the broker (SIGTERM, then SIGKILL) and keeps its data directory. */
    pause(): Promise<void>;
    /** Starts it again on the same port and data directory; resolves once it accepts connections. */
    resume(): Promise<void>;
  };
  postgres: {
    adminUrl: string;
    host: string;
    port: number;
    /** pg_ctl stop -m fast, keeping the data directory. */
    pause(): Promise<void>;
    /** pg_ctl start on the same port and data directory; resolves once it accepts logins. */
    resume(): Promise<void>;
  };
}

/** Extra environment per service, read each time a process of it starts (SystemOptions.env). */
export type ServiceEnvironment = Partial<Record<ServiceName, Record<string, string>>>;

export interface ChaosContext {
  /** The running system; during `prepare` its databases exist and no service runs yet. */
  system: SystemUnderTest;
  infra: ChaosInfra;
  /** Every service's database name, e.g. `{ payments: 't…_payments' }`. */
  databases: Record<ServiceName, string>;
  /**
   * The services' environment at start, mutable until they start and honoured by every later
   * restart too: a fault proxy set in `prepare` routes a service through itself by setting its
   * KAFKA_BROKERS or <SERVICE>_DATABASE_URL here (see `routeService`).
   */
  env: ServiceEnvironment;
  /** The instances the runner started (every service, plus replicas such as `payments-2`). */
  instances: readonly InstanceName[];
  log(line: string): void;
}

/**
 * A fault of the run. `Context` is what its steps read: the whole ChaosContext by default; a
 * fault that reads less (the proxy's, the callback sink's) names that subset, so its tests can
 * hand it just that, and it is still a ChaosFault of the run (a ChaosContext is one).
 */
export interface ChaosFault<Context = ChaosContext> {
  /** The family, for the report's per-kind counts: `sigkill`, `kafka-restart`, `proxy-latency`, … */
  kind: string;
  /** This fault, unique in a run: `sigkill payments-2`. */
  name: string;
  /** Runs once before any service starts (the databases exist), e.g. to start a proxy and route services through it. */
  prepare?(context: Context): Promise<void>;
  inject(context: Context): Promise<void>;
  heal(context: Context): Promise<void>;
  /** Runs once when the run ends, whatever happened: stops what `prepare` started. */
  dispose?(context: Context): Promise<void>;
  /** How long the outage is held open between inject and heal (default 0: heal right away). */
  holdMs?: number;
  /**
   * Where recovery is measured from: the injection (a crash others ride over, e.g. a replica's
   * SIGKILL) or the end of the heal (an outage held open). Default: `heal`.
   */
  recoveryFrom?: 'inject' | 'heal';
  /** The longest recovery the verdict accepts (default DEFAULT_RECOVERY_BOUND_MS). */
  recoveryBoundMs?: number;
}

/** A restart of the ledger or payments takes a consumer-group rebalance (6 s session timeout) and a few seconds of boot. */
export const DEFAULT_RECOVERY_BOUND_MS = 30_000;

/** Sets environment variables of some services, keeping what others set. */
export function routeService(env: ServiceEnvironment, service: ServiceName, variables: Record<string, string>): void {
  env[service] = { ...(env[service] ?? {}), ...variables };
}

/**
 * SIGKILL, as a crash: no shutdown hook runs. Healed by starting the instance again (it must
 * pass its readiness check). Recovery counts from the kill: the load has to get through
 * meanwhile or right after, whichever instance it is.
 */
export function sigkillFault(instance: InstanceName): ChaosFault {
  return {
    kind: 'sigkill',
    name: `sigkill ${instance}`,
    holdMs: 1_000,
    recoveryFrom: 'inject',
    inject: async ({ system }) => system.kill(instance),
    heal: async ({ system }) => system.startService(instance),
  };
}

/**
 * A dependency stopped and started again on the same port and data: the broker (every producer
 * and consumer reconnects) or PostgreSQL (fast shutdown: every connection closed).
 */
export function dependencyRestartFault(dependency: 'kafka' | 'postgres', downMs: number): ChaosFault {
  return {
    kind: `${dependency}-restart`,
    name: `${dependency} restart (${downMs / 1000} s down)`,
    holdMs: downMs,
    recoveryBoundMs: 45_000,
    inject: async ({ infra }) => infra[dependency].pause(),
    heal: async ({ infra }) => infra[dependency].resume(),
  };
}

/**
 * Every connection of the services to their databases closed under them (pg_terminate_backend),
 * as a failover or an idle-connection reaper would: pools must notice and reconnect. The server
 * stays up, so there is nothing to heal; recovery counts from the drop.
 */
export function postgresConnectionDropFault(): ChaosFault {
  return {
    kind: 'postgres-connection-drop',
    name: 'postgres connection drop',
    recoveryFrom: 'inject',
    inject: async ({ infra, databases, log }) => {
      const admin = new Client({ connectionString: infra.postgres.adminUrl, application_name: 'chaos' });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ dropped: string }>(
          'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS dropped FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid()',
          [Object.values(databases)],
        );
        log(`dropped ${rows[0]?.dropped ?? 0} connections`);
      } finally {
        await admin.end();
      }
    },
    // Nothing to undo: the server never went away.
    heal: () => Promise.resolve(),
  };
}

/**
 * The crashes and restarts a run injects, in order. A quick run leaves out the connection drop
 * by pg_terminate_backend: the fault proxy's PostgreSQL drop (proxy-faults.ts), in every run,
 * closes the same connections under the pools, and CI time is short.
 */
export function standardFaults(mode: 'quick' | 'full', instances: readonly InstanceName[]): ChaosFault[] {
  if (mode === 'quick') return [sigkillFault('payments-2'), sigkillFault('ledger'), dependencyRestartFault('kafka', 3_000)];
  return [
    ...instances.map((instance) => sigkillFault(instance)),
    dependencyRestartFault('kafka', 4_000),
    dependencyRestartFault('postgres', 3_000),
    postgresConnectionDropFault(),
  ];
}
