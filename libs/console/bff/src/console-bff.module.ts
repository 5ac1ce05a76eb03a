import { Inject, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { SecretBox } from '@mp/access-domain';
import { BackofficeAuditStore, BackofficeCredentialStore, ConsoleKeyStore, MerchantCredentialStore } from '@mp/access-infrastructure';
import { MetricsRegistry } from '@mp/shared-metrics';
import { CLOCK, type Clock } from '@mp/shared-util-clock';
import type { FastifyInstance } from 'fastify';
import { DataSource } from 'typeorm';
import { ConsoleHttp } from './console-http';
import { ConsoleMetrics } from './console-metrics';
import { ConsoleSessionStore } from './console-session.store';
import { CONSOLE_SETTINGS, type ConsoleSettings } from './console-settings';

const MINUTE_MS = 60_000;

/** Registers the console's routes on the gateway's Fastify instance when the app initialises. */
class ConsoleRoutes implements OnModuleInit {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(MetricsRegistry) private readonly registry: MetricsRegistry,
    @Inject(CONSOLE_SETTINGS) private readonly settings: ConsoleSettings,
  ) {}

  onModuleInit(): void {
    const secretBox = new SecretBox(this.settings.secretsKeyring);
    const sessions = new ConsoleSessionStore(this.dataSource, secretBox, {
      idleMs: this.settings.sessionIdleMinutes * MINUTE_MS,
      maxMs: this.settings.sessionMaxHours * 60 * MINUTE_MS,
    });
    // The gateway's clock (tests move it forward to expire sessions), provided by the gateway's API module.
    const clock = this.moduleRef.get<Clock>(CLOCK, { strict: false });
    const http = new ConsoleHttp({
      settings: this.settings,
      sessions,
      consoleKeys: new ConsoleKeyStore(this.dataSource),
      backofficeCredentials: new BackofficeCredentialStore(this.dataSource),
      // No cache: each merchant call is signed with the secret as it is now, right after a rotation too.
      merchants: new MerchantCredentialStore(this.dataSource, secretBox, 0),
      audit: new BackofficeAuditStore(this.dataSource),
      metrics: new ConsoleMetrics(this.registry, () => sessions.countActive(clock.now())),
      clock,
    });
    http.register(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
  }
}

/** The console's backend-for-frontend, inside the gateway process (CONSOLE-CONTRACT: sessions, CSRF, relays, the bundle). */
@Module({})
export class ConsoleBffModule {
  static forRoot(settings: ConsoleSettings): DynamicModule {
    return { module: ConsoleBffModule, providers: [{ provide: CONSOLE_SETTINGS, useValue: settings }, ConsoleRoutes] };
  }
}
