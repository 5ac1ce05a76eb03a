import type { WebhookSecretStore } from '@mp/access-infrastructure';
import { reloadInternalTlsWhenRenewed } from '@mp/shared-health';
import { serveMetrics, type MetricsRegistry } from '@mp/shared-metrics';
import { isInternalRoute, type ServiceAuthenticator } from '@mp/shared-service-auth';
import { DomainError, httpStatusOf, internalErrorBody } from '@mp/shared-util-errors';
import { MERCHANT_ID_PATTERN } from '@mp/shared-util-validation';
import type { OffsetClock } from '@mp/shared-util-clock';
import { internalTlsOptions, type InternalTls } from '@mp/shared-util-config';
import type { Server } from 'node:https';
import Fastify, { type FastifyInstance } from 'fastify';

export interface InternalListenerSettings {
  host: string;
  port: number;
  /** Checks the caller's service token and the gateway's allow-list (GATEWAY_INTERNAL_ACCESS) on every /internal/ route. */
  authenticator: ServiceAuthenticator;
  /**
   * The gateway's Prometheus registry, served as GET /metrics here: the public port never
   * serves metrics. No service token: metrics carry no merchant data or secret (ids never
   * become label values), and the port is reachable from the cluster only.
   */
  metrics?: MetricsRegistry;
  /** Tests only (TEST_CLOCK_ENABLED): POST /internal/test/clock {"advance_seconds"} moves this clock forward. */
  testClock?: OffsetClock;
  /** HTTPS with this keystore (INTERNAL_TLS_*): webhook secrets and service tokens cross the pod network here. */
  tls?: InternalTls | null;
  /** Operators' per-merchant callback allow-lists, served with the profile so the dispatcher checks them before each attempt. */
  callbackAllowLists?: { allowListOf(merchantId: string): Promise<{ entries: string[] }> };
}

/**
 * The gateway's internal-only listener, on its own port (never the public one) and behind
 * service tokens (the callback dispatcher's, checked like every service's internal API): it serves the callback dispatcher the merchant's webhook secrets, so secrets
 * never travel on a shared topic. A plain Fastify instance rather than a route of the Nest app,
 * so no public route, guard or filter can ever expose it by mistake.
 */
export async function startInternalListener(store: WebhookSecretStore, settings: InternalListenerSettings): Promise<FastifyInstance> {
  const tls = settings.tls ?? null;
  const server = Fastify({ bodyLimit: 1_024, ...(tls ? { https: internalTlsOptions(tls) } : {}) });
  server.addHook('preHandler', async (request, reply) => {
    const route = request.routeOptions.url;
    if (route === undefined || !isInternalRoute(route)) return;
    try {
      await settings.authenticator.authorize(request.method, route, request.headers.authorization);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return reply.status(httpStatusOf(error.code)).send(error.toDescription());
    }
  });
  server.get('/health', async () => ({ status: 'ok' }));
  if (settings.metrics) serveMetrics(server, settings.metrics);
  server.get<{ Params: { merchantId: string } }>('/internal/merchants/:merchantId/webhook-profile', async (request, reply) => {
    // As the path-id pipes do (MerchantIdParam): a malformed id names no merchant and never reaches the database.
    const { merchantId } = request.params;
    const profile = MERCHANT_ID_PATTERN.test(merchantId) ? await store.findWebhookProfile(merchantId) : null;
    if (!profile) return reply.status(404).send(internalErrorBody('NOT_FOUND', 'No such merchant'));
    const allowed = settings.callbackAllowLists ? (await settings.callbackAllowLists.allowListOf(merchantId)).entries : [];
    return reply.header('cache-control', 'no-store').send({ ...profile, allowed_callback_destinations: allowed });
  });
  const testClock = settings.testClock;
  if (testClock) {
    server.post<{ Body: { advance_seconds?: unknown } }>('/internal/test/clock', async (request, reply) => {
      const seconds = request.body?.advance_seconds;
      if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < 0)
        return reply.status(400).send(internalErrorBody('VALIDATION_ERROR', 'advance_seconds must be a whole number of seconds, 0 or more'));
      testClock.advance(seconds * 1_000);
      return { now: testClock.now().toISOString() };
    });
  }
  await server.listen({ host: settings.host, port: settings.port });
  const stopWatching = reloadInternalTlsWhenRenewed(server.server as Server, tls);
  server.server.once('close', stopWatching);
  return server;
}
