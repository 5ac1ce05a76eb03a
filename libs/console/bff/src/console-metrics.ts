import type { MetricsRegistry } from '@mp/shared-metrics';
import type { ConsoleRole } from './console-session.store';

export const CONSOLE_METRIC_NAMES = {
  logins: 'console_logins_total',
  sessionsEnded: 'console_sessions_ended_total',
  activeSessions: 'console_active_sessions',
  relayRequests: 'console_relay_requests_total',
} as const;

export type LoginOutcome = 'success' | 'invalid_credentials' | 'invalid_request';
/** Why this replica ended a session (an expired one simply stops working: nothing ends it). */
export type SessionEnd = 'logout' | 'credential_revoked';

/** The console's series in the gateway's registry (GET /metrics on the internal listener). */
export class ConsoleMetrics {
  private readonly logins;
  private readonly ended;
  private readonly relayed;

  constructor(registry: MetricsRegistry, countActiveSessions: () => Promise<number>) {
    this.logins = registry.counter({
      name: CONSOLE_METRIC_NAMES.logins,
      help: 'Console sign-in attempts by role and outcome',
      labelNames: ['role', 'outcome'],
    });
    this.ended = registry.counter({ name: CONSOLE_METRIC_NAMES.sessionsEnded, help: 'Console sessions this replica ended, by why', labelNames: ['reason'] });
    this.relayed = registry.counter({
      name: CONSOLE_METRIC_NAMES.relayRequests,
      help: 'Console calls relayed to the merchant or back-office API, by role and answer class',
      labelNames: ['role', 'status_class'],
    });
    // Read from the database at scrape time: sessions live in the database, shared by every replica.
    registry.gauge({
      name: CONSOLE_METRIC_NAMES.activeSessions,
      help: 'Console sessions neither expired nor ended (all replicas)',
      async collect() {
        this.set(await countActiveSessions().catch(() => 0));
      },
    });
  }

  login(role: ConsoleRole | 'unknown', outcome: LoginOutcome): void {
    this.logins.inc({ role, outcome });
  }

  sessionEnded(reason: SessionEnd): void {
    this.ended.inc({ reason });
  }

  relay(role: ConsoleRole, status: number): void {
    this.relayed.inc({ role, status_class: `${Math.floor(status / 100)}xx` });
  }
}
