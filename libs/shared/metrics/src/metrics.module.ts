import { Inject, Injectable, Module, Optional, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MESSAGE_BROKER, type MessageBroker } from '@mp/shared-messaging';
import type { FastifyInstance } from 'fastify';
import { DataSource } from 'typeorm';
import { applyCommittedCounts } from './committed-counts';
import { instrumentHttp, serveMetrics } from './http-metrics';
import { registerMessagingMetrics, registerOutboxMetrics } from './messaging-metrics';
import { MetricsRegistry } from './metrics-registry';

export interface MetricsModuleOptions {
  /** The service's name, the `service` label of every series. */
  service: string;
  /** The service has a transactional outbox: export its depth and oldest row's age. */
  outbox: boolean;
  /**
   * Serve GET /metrics on the app's own HTTP port. The services' ports are internal-only; the
   * gateway's is public, so the gateway says false and serves the registry on its internal
   * listener instead.
   */
  serveOnAppPort: boolean;
  /** The service's own series (its bounded context's), registered on the app's registry and database. */
  domainMetrics?: (metrics: MetricsRegistry, dataSource: DataSource) => void;
}

const METRICS_MODULE_OPTIONS = Symbol('METRICS_MODULE_OPTIONS');

@Injectable()
class MetricsWiring implements OnModuleInit {
  constructor(
    @Inject(METRICS_MODULE_OPTIONS) private readonly options: MetricsModuleOptions,
    private readonly metrics: MetricsRegistry,
    private readonly adapterHost: HttpAdapterHost,
    private readonly dataSource: DataSource,
    @Optional() @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker | null,
  ) {}

  // Before the app listens: Fastify takes hooks and routes only until it is ready.
  onModuleInit(): void {
    const server = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    instrumentHttp(server, this.metrics);
    if (this.options.serveOnAppPort) serveMetrics(server, this.metrics);
    if (this.broker) registerMessagingMetrics(this.metrics, this.broker);
    if (this.options.outbox) registerOutboxMetrics(this.metrics, this.dataSource);
    applyCommittedCounts(this.dataSource, this.metrics);
    this.options.domainMetrics?.(this.metrics, this.dataSource);
  }
}

/**
 * Prometheus metrics of one service process: the registry (MetricsRegistry, global, for
 * libraries' own series), process defaults and event-loop lag, HTTP latency by route, consumer
 * lag and dead letters from the messaging port, and the outbox backlog. Imported once by each
 * app, after TypeOrmModule and MessagingModule.
 */
@Module({})
export class MetricsModule {
  static forRoot(options: MetricsModuleOptions): DynamicModule {
    return {
      module: MetricsModule,
      global: true,
      providers: [
        { provide: METRICS_MODULE_OPTIONS, useValue: options },
        { provide: MetricsRegistry, useFactory: () => new MetricsRegistry(options.service) },
        MetricsWiring,
      ],
      exports: [MetricsRegistry],
    };
  }
}
