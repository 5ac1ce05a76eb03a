import type { FastifyInstance } from 'fastify';
import type { ConsoleSettings } from './console-settings';

export type HealthServiceName = 'gateway' | 'payments' | 'ledger' | 'disputes' | 'withdrawals' | 'callbacks';

export interface SystemHealth {
  services: Array<{ name: HealthServiceName; ready: boolean; detail: string }>;
  checked_at: string;
}

/**
 * The operators' health view: this gateway's readiness (its own route, answered in-process) and
 * that of each service it knows the internal URL of, asked in parallel within the health timeout.
 * Readiness routes need no service token.
 */
export async function checkSystemHealth(
  fastify: FastifyInstance,
  settings: Pick<ConsoleSettings, 'serviceUrls' | 'healthCheckTimeoutMs'>,
): Promise<SystemHealth> {
  const gateway = (async () => {
    const answer = await fastify.inject({ method: 'GET', url: '/health/ready' });
    return {
      name: 'gateway' as const,
      ready: answer.statusCode === 200,
      detail: answer.statusCode === 200 ? 'ready' : `not ready (HTTP ${answer.statusCode})`,
    };
  })();
  const others = (Object.entries(settings.serviceUrls) as Array<[Exclude<HealthServiceName, 'gateway'>, string]>).map(async ([name, url]) => {
    try {
      const answer = await fetch(new URL('/health/ready', url), { signal: AbortSignal.timeout(settings.healthCheckTimeoutMs) });
      await answer.body?.cancel();
      return { name, ready: answer.status === 200, detail: answer.status === 200 ? 'ready' : `not ready (HTTP ${answer.status})` };
    } catch (error) {
      return { name, ready: false, detail: `unreachable: ${error instanceof Error ? error.message : String(error)}` };
    }
  });
  return { services: await Promise.all([gateway, ...others]), checked_at: new Date().toISOString() };
}
