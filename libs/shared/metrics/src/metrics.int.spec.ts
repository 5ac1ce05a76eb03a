/**
 * Goal: the pieces MetricsModule wires behave as the docs/operations/metrics.md says: an
 * increment made in a transaction counts only when it commits; HTTP requests are labelled by
 * route pattern, never by raw URL; the exposition is Prometheus text with the service label.
 * Method: a real PostgreSQL database and a real Fastify server (requests through `inject`).
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { applyCommittedCounts, countAfterCommit } from './committed-counts';
import { instrumentHttp, serveMetrics } from './http-metrics';
import { MetricsRegistry } from './metrics-registry';

const runId = `metrics${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;

describe('metrics of a service process', () => {
  let dataSource: DataSource;
  let metrics: MetricsRegistry;
  let server: FastifyInstance;

  beforeAll(async () => {
    const admin = new Client({ connectionString: process.env['TEST_PG_ADMIN_URL'] });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${runId}"`);
    await admin.end();
    const url = new URL(process.env['TEST_PG_ADMIN_URL'] ?? '');
    url.pathname = `/${runId}`;
    dataSource = new DataSource({ type: 'postgres', url: url.toString() });
    await dataSource.initialize();
    await dataSource.query(`CREATE TABLE things (id TEXT PRIMARY KEY)`);
    metrics = new MetricsRegistry('test-service');
    applyCommittedCounts(dataSource, metrics);
    server = Fastify();
    instrumentHttp(server, metrics);
    serveMetrics(server, metrics);
    server.get<{ Params: { orderId: string } }>('/v2/orders/:orderId', async (request) => ({ orderId: request.params.orderId }));
    server.get('/v2/broken', async () => {
      throw new Error('boom');
    });
    await server.ready();
  });

  afterAll(async () => {
    await server?.close();
    await dataSource?.destroy();
  });

  const exposition = async () => (await server.inject({ method: 'GET', url: '/metrics' })).body;

  it('counts an increment made in a transaction when it commits, never when it rolls back', async () => {
    const things = metrics.counter({ name: 'things_total', help: 'things stored', labelNames: ['kind'] });
    await dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO things (id) VALUES ('a'), ('b')`);
      countAfterCommit(manager, 'things_total', { kind: 'plain' }, 2);
      // Not yet: the transaction has not committed.
      expect((await things.get()).values).toEqual([]);
    });
    await expect(
      dataSource.transaction(async (manager) => {
        await manager.query(`INSERT INTO things (id) VALUES ('c')`);
        countAfterCommit(manager, 'things_total', { kind: 'plain' });
        await manager.query(`INSERT INTO things (id) VALUES ('a')`);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect((await things.get()).values).toEqual([{ labels: { kind: 'plain' }, value: 2 }]);
    // A query runner used again after a rollback starts from nothing pending.
    const runner = dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      countAfterCommit(runner.manager, 'things_total', { kind: 'plain' }, 5);
      await runner.rollbackTransaction();
      await runner.startTransaction();
      countAfterCommit(runner.manager, 'things_total', { kind: 'plain' });
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect((await things.get()).values).toEqual([{ labels: { kind: 'plain' }, value: 3 }]);
  });

  it('labels HTTP requests by route pattern and status, never by raw URL', async () => {
    expect((await server.inject({ method: 'GET', url: '/v2/orders/order-secret-42' })).statusCode).toBe(200);
    expect((await server.inject({ method: 'GET', url: '/v2/orders/mch_0123456789abcdef' })).statusCode).toBe(200);
    expect((await server.inject({ method: 'GET', url: '/v2/broken' })).statusCode).toBe(500);
    expect((await server.inject({ method: 'GET', url: '/scanner/mch_0123456789abcdef/.env' })).statusCode).toBe(404);

    const text = await exposition();
    expect(text).toContain('# TYPE http_server_request_duration_seconds histogram');
    expect(text).toContain('http_server_request_duration_seconds_count{service="test-service",method="GET",route="/v2/orders/:orderId",status_code="200"} 2');
    expect(text).toContain('http_server_request_duration_seconds_count{service="test-service",method="GET",route="/v2/broken",status_code="500"} 1');
    expect(text).toContain('http_server_request_duration_seconds_count{service="test-service",method="GET",route="unmatched",status_code="404"} 1');
    expect(text).not.toMatch(/order-secret-42|mch_|\.env/);
  });

  it('serves process defaults and event-loop lag in the Prometheus text format, labelled with the service', async () => {
    const response = await server.inject({ method: 'GET', url: '/metrics' });
    expect(response.headers['content-type']).toContain('text/plain; version=0.0.4');
    expect(response.body).toMatch(/^process_cpu_user_seconds_total\{service="test-service"\} [\d.e-]+$/m);
    expect(response.body).toMatch(/^nodejs_eventloop_lag_seconds\{service="test-service"\} [\d.e-]+$/m);
    // Asking twice for one name gives the same metric instead of throwing.
    expect(metrics.counter({ name: 'things_total', help: 'things stored', labelNames: ['kind'] })).toBe(metrics.registry.getSingleMetric('things_total'));
  });
});
