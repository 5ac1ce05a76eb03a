import type { FastifyInstance } from 'fastify';
import type { MetricsRegistry } from './metrics-registry';

/** Label of requests no route matched: scanners' raw paths must not become label values. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every HTTP request of a Fastify instance into `http_server_request_duration_seconds`,
 * labelled by method, route pattern (`/v2/orders/:orderId`, never the raw URL, so no order id or
 * merchant id becomes a label) and status code. One onResponse hook: the cost is one histogram
 * observation per request.
 */
export function instrumentHttp(server: FastifyInstance, metrics: MetricsRegistry): void {
  const duration = metrics.histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Time from receiving an HTTP request to sending its response, by route pattern and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  server.addHook('onResponse', (request, reply, done) => {
    duration.observe(
      { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1_000,
    );
    done();
  });
}

/** Serves GET /metrics from `metrics` on `server`. */
export function serveMetrics(server: FastifyInstance, metrics: MetricsRegistry): void {
  server.get('/metrics', async (_request, reply) => {
    const exposition = await metrics.exposition();
    return reply.header('content-type', exposition.contentType).header('cache-control', 'no-store').send(exposition.body);
  });
}
