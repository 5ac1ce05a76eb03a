import { Controller, Get, Inject } from '@nestjs/common';
import {
  TypeOrmHealthIndicator,
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  type HealthCheckResult,
  type HealthIndicatorFunction,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import { MESSAGE_BROKER, type MessageBroker } from '@mp/shared-messaging';
import { HEALTH_SETTINGS, type HealthSettings } from './health-settings';
import { Readiness } from './readiness';

/**
 * The probes. `live`: the process answers (its event loop turns), nothing else, so a slow
 * dependency never gets a replica restarted. `ready`: it can do its work now: PostgreSQL
 * answers a query, the broker answers, its consumer groups run and are not too far behind, and
 * it is not shutting down. Not ready answers 503 with terminus' body naming what is down.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(HEALTH_SETTINGS) private readonly settings: HealthSettings,
    private readonly readiness: Readiness,
  ) {}

  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check(this.readinessChecks());
  }

  /** The path the launcher and the test harness have always polled: readiness. */
  @Get()
  @HealthCheck()
  alias(): Promise<HealthCheckResult> {
    return this.ready();
  }

  private readinessChecks(): HealthIndicatorFunction[] {
    return [() => this.shutdown(), () => this.database.pingCheck('database', { timeout: this.settings.healthCheckTimeoutMs }), () => this.kafka()];
  }

  private shutdown(): HealthIndicatorResult {
    const session = this.indicators.check('shutdown');
    const since = this.readiness.shutdownStartedAt;
    return since ? session.down({ message: 'shutting down', since: since.toISOString() }) : session.up();
  }

  private async kafka(): Promise<HealthIndicatorResult> {
    const session = this.indicators.check('kafka');
    const state = await this.broker.health(this.settings.healthCheckTimeoutMs);
    const groups = state.groups.map(({ groupId, state: groupState, lag }) => ({ group: groupId, state: groupState, lag }));
    if (!state.reachable) return session.down({ message: `broker unreachable: ${state.error}`, groups });
    // A rebalance (a replica joined, left or died) is part of normal operation and brief.
    const broken = state.groups.filter((group) => group.state === 'crashed' || group.state === 'stopped');
    if (broken.length > 0) return session.down({ message: `consumer group ${broken.map((group) => `${group.groupId} ${group.state}`).join(', ')}`, groups });
    const { consumerLagMax } = this.settings;
    const behind = consumerLagMax > 0 ? state.groups.filter((group) => group.lag > consumerLagMax) : [];
    if (behind.length > 0)
      return session.down({ message: `consumer lag above ${consumerLagMax}: ${behind.map((group) => `${group.groupId} ${group.lag}`).join(', ')}`, groups });
    return session.up({ groups, ...(state.settling ? { settling: state.settling } : {}) });
  }
}
