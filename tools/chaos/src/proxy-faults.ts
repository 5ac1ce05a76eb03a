/**
 * Network faults between the services and their dependencies, through TCP fault proxies
 * (fault-proxy.ts; docs/operations/chaos.md, "Network faults"): every service reaches PostgreSQL,
 * the Kafka broker and the ledger's internal HTTP through a proxy of its own kind, and the
 * faults add latency there, drop the open connections, or refuse new ones for a while.
 *
 * Wiring, in the runner's order:
 * 1. `ProxiedDependencies.start()` before the infrastructure: the Kafka proxy's port must be
 *    known when the broker writes its configuration;
 * 2. `startInfra({ kafkaProxiedListener: dependencies.kafkaProxiedListener, … })`: the broker
 *    gets a second listener that advertises the proxy, and its handle says where that listener
 *    is (`kafka.proxiedListener.port`; hand it on as ChaosContext.infra.kafka.proxiedListener);
 * 3. the faults' `prepare` (once the databases exist, before any service starts) points the
 *    proxies at the run's dependencies and routes every service through them in ChaosContext.env;
 * 4. `dispose` closes the proxies.
 */
import type { SystemUnderTest } from '@mp/shared-testing';
import { FaultProxy, type ProxyMode, type ProxyUpstream } from './fault-proxy';
import type { ChaosFault } from './faults';

type ServiceName = Parameters<SystemUnderTest['databaseUrl']>[0];

/**
 * What these faults read of the runner's ChaosContext (tools/chaos/src/faults.ts): a subset of
 * it, so a ChaosContext is one, and these faults are ChaosFaults as they are.
 */
export interface ProxyFaultContext {
  system: Pick<SystemUnderTest, 'databaseUrl' | 'ports'>;
  infra: {
    kafka: { proxiedListener?: { port: number } | null };
    postgres: { host: string; port: number };
  };
  /** Every service's database name: which services to route. */
  databases: Partial<Record<ServiceName, string>>;
  /** The services' environment at start (SystemOptions.env), honoured by every restart. */
  env: Partial<Record<ServiceName, Record<string, string>>>;
  log(line: string): void;
}

/** A proxy fault: it routes the services in `prepare` and closes the proxies in `dispose`. */
export type ProxyChaosFault = ChaosFault<ProxyFaultContext> & Required<Pick<ChaosFault<ProxyFaultContext>, 'prepare' | 'dispose'>>;

/** The service whose internal HTTP the faults break: payments' payout holds, the gateway's balance reads and withdrawals' holds go to it. */
const INTERNAL_HTTP_TARGET: ServiceName = 'ledger';

/** Until `route` points a proxy somewhere, a connection to it is refused: a port nobody listens on. */
const NOWHERE: ProxyUpstream = { host: '127.0.0.1', port: 1 };

/** The three proxies of a run and where they forward to, set once the run's infrastructure and system exist. */
export class ProxiedDependencies {
  private routed = false;
  private closing: Promise<void> | null = null;

  private constructor(
    readonly postgres: FaultProxy,
    readonly kafka: FaultProxy,
    readonly internalHttp: FaultProxy,
    private readonly upstreams: Record<'postgres' | 'kafka' | 'internalHttp', () => ProxyUpstream>,
  ) {}

  static async start(): Promise<ProxiedDependencies> {
    const upstreams = { postgres: () => NOWHERE, kafka: () => NOWHERE, internalHttp: () => NOWHERE };
    const started = await Promise.all([
      FaultProxy.start({ name: 'postgres', upstream: () => upstreams.postgres() }),
      FaultProxy.start({ name: 'kafka', upstream: () => upstreams.kafka() }),
      FaultProxy.start({ name: `${INTERNAL_HTTP_TARGET} internal HTTP`, upstream: () => upstreams.internalHttp() }),
    ]);
    return new ProxiedDependencies(started[0], started[1], started[2], upstreams);
  }

  /** startInfra's option: the broker advertises the Kafka proxy on a listener of its own. */
  get kafkaProxiedListener(): { advertisedPort: number } {
    return { advertisedPort: this.kafka.port };
  }

  /** Points the proxies at the run's dependencies and routes every service through them; once per run. */
  route(context: ProxyFaultContext): void {
    if (this.routed) return;
    const proxiedListener = context.infra.kafka.proxiedListener;
    if (!proxiedListener) {
      throw new Error(
        'the Kafka fault proxy needs the broker started with startInfra({ kafkaProxiedListener: dependencies.kafkaProxiedListener }) and its kafka.proxiedListener in ChaosContext.infra.kafka',
      );
    }
    const { host, port } = context.infra.postgres;
    this.upstreams.postgres = () => ({ host, port });
    this.upstreams.kafka = () => ({ host: '127.0.0.1', port: proxiedListener.port });
    // Asked at each connection: the ledger's port is chosen when the system starts, after this.
    this.upstreams.internalHttp = () => ({ host: '127.0.0.1', port: context.system.ports.get(INTERNAL_HTTP_TARGET) ?? NOWHERE.port });
    for (const service of Object.keys(context.databases) as ServiceName[]) {
      const databaseUrl = new URL(context.system.databaseUrl(service));
      databaseUrl.host = this.postgres.address;
      context.env[service] = {
        ...(context.env[service] ?? {}),
        KAFKA_BROKERS: this.kafka.address,
        [`${envPrefix(service)}_DATABASE_URL`]: databaseUrl.toString(),
        ...(service === INTERNAL_HTTP_TARGET ? {} : { [`${envPrefix(INTERNAL_HTTP_TARGET)}_INTERNAL_URL`]: `http://${this.internalHttp.address}` }),
      };
    }
    this.routed = true;
    context.log(
      `services reach PostgreSQL through ${this.postgres.address}, Kafka through ${this.kafka.address}, the ${INTERNAL_HTTP_TARGET}'s internal HTTP through ${this.internalHttp.address}`,
    );
  }

  close(): Promise<void> {
    this.closing ??= Promise.all([this.postgres.close(), this.kafka.close(), this.internalHttp.close()]).then(() => undefined);
    return this.closing;
  }
}

/** callback-dispatcher → CALLBACK_DISPATCHER, as the services name their variables. */
function envPrefix(service: string): string {
  return service.toUpperCase().replace(/-/g, '_');
}

type ProxyName = 'postgres' | 'kafka' | 'internalHttp';

interface FaultSpec {
  kind: 'proxy-latency' | 'proxy-drop' | 'proxy-refuse' | 'proxy-black-hole';
  name: string;
  proxy: ProxyName;
  /** The mode held between inject and heal (none: the drop is the whole fault). */
  mode?: ProxyMode;
  /** Drop the open connections when injecting. */
  drop?: boolean;
  holdMs?: number;
}

function proxyFault(dependencies: ProxiedDependencies, spec: FaultSpec): ProxyChaosFault {
  const proxy = dependencies[spec.proxy];
  return {
    kind: spec.kind,
    name: spec.name,
    ...(spec.holdMs ? { holdMs: spec.holdMs } : {}),
    // A drop alone is over at once, like a crash others ride over; a held mode is an outage, measured from its end.
    recoveryFrom: spec.mode ? 'heal' : 'inject',
    prepare: async (context) => dependencies.route(context),
    inject: async ({ log }) => {
      if (spec.mode) proxy.setMode(spec.mode);
      if (spec.drop) log(`${spec.name}: dropped ${proxy.dropConnections()} ${proxy.name} connections`);
    },
    heal: async ({ log }) => {
      proxy.setMode({ kind: 'pass-through' });
      log(`${spec.name}: ${proxy.name} proxy back to pass-through (${JSON.stringify(proxy.stats())})`);
    },
    dispose: async () => dependencies.close(),
  };
}

/**
 * The network faults of a run, in order. Quick (CI): the two drops, over in a moment. Full:
 * latency on PostgreSQL and Kafka held for 10 s, both drops, the ledger's internal HTTP dropped
 * and refused for 5 s, then black-holed for 3 s.
 */
export function proxyFaults(dependencies: ProxiedDependencies, mode: 'quick' | 'full'): ProxyChaosFault[] {
  const drops: FaultSpec[] = [
    { kind: 'proxy-drop', name: 'postgres connections dropped (proxy)', proxy: 'postgres', drop: true },
    { kind: 'proxy-drop', name: 'kafka connections dropped (proxy)', proxy: 'kafka', drop: true },
  ];
  const specs: FaultSpec[] =
    mode === 'quick'
      ? drops
      : [
          { kind: 'proxy-latency', name: 'postgres latency 300 ms for 10 s', proxy: 'postgres', mode: { kind: 'latency', latencyMs: 300 }, holdMs: 10_000 },
          drops[0],
          { kind: 'proxy-latency', name: 'kafka latency 500 ms for 10 s', proxy: 'kafka', mode: { kind: 'latency', latencyMs: 500 }, holdMs: 10_000 },
          drops[1],
          {
            kind: 'proxy-refuse',
            name: `${INTERNAL_HTTP_TARGET} internal HTTP dropped and refused for 5 s`,
            proxy: 'internalHttp',
            mode: { kind: 'refuse' },
            drop: true,
            holdMs: 5_000,
          },
          {
            kind: 'proxy-black-hole',
            name: `${INTERNAL_HTTP_TARGET} internal HTTP black-holed for 3 s`,
            proxy: 'internalHttp',
            mode: { kind: 'black-hole' },
            holdMs: 3_000,
          },
        ];
  return specs.map((spec) => proxyFault(dependencies, spec));
}
