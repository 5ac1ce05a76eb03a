/**
 * Goal: an address's authentication failures are refused once its bucket is empty, however fast
 * the forgeries come. A 401 is answered before its token is taken, so a flood answered faster
 * than one lease statement must wait for that statement instead of outrunning it. Method: the
 * real RateLimiter's hooks on a Fastify server, the real store and migrations on a private
 * database, each lease statement held back 200 ms (a loaded machine's round trip); a route that
 * answers every request 401 stands in for a forged signature.
 */
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import { DomainError } from '@mp/shared-util-errors';
import fastify, { type FastifyInstance } from 'fastify';
import type { DataSource } from 'typeorm';
import type { GatewaySettings } from '../gateway-settings';
import { GatewayRateLimitBuckets1700000020000 } from './rate-limit.migration';
import { GatewayRateLimitLeases1700000021000 } from './rate-limit-lease.migration';
import { RateLimiter } from './rate-limiter';

const AUTH_FAILURES = { ratePerSecond: 1, burst: 5 };
const STATEMENT_DELAY_MS = 200;

describe('address limits on authentication failures', () => {
  let dataSource: DataSource;
  let server: FastifyInstance;
  let leaseStatements = 0;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('rla', [GatewayRateLimitBuckets1700000020000, GatewayRateLimitLeases1700000021000]);
    const slowSource = {
      query: async (sql: string, parameters?: unknown[]) => {
        leaseStatements += 1;
        await new Promise((resolve) => setTimeout(resolve, STATEMENT_DELAY_MS));
        return dataSource.query(sql, parameters);
      },
    } as unknown as DataSource;
    const settings = {
      rateLimits: { merchant: { ratePerSecond: 100, burst: 200 }, address: { ratePerSecond: 100, burst: 200 }, authFailures: AUTH_FAILURES },
      trustedProxies: [],
    } as unknown as GatewaySettings;
    const limiter = new RateLimiter(settings, slowSource);
    server = fastify();
    limiter.registerAddressLimits(server);
    server.setErrorHandler((error, _request, reply) =>
      error instanceof DomainError && error.code === 'RATE_LIMITED'
        ? reply.code(429).send({ code: error.code })
        : reply.code(500).send({ message: String(error) }),
    );
    server.get('/v2/merchant/balances', async (_request, reply) => reply.code(401).send({ code: 'SIGNATURE_INVALID' }));
    await server.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await dataSource?.destroy();
  });

  const forge = async () => (await fetch(`http://127.0.0.1:${(server.server.address() as { port: number }).port}/v2/merchant/balances`)).status;

  it('refuses a forged flood answered faster than one lease statement, after at most the burst and what a statement takes to refill', async () => {
    const started = performance.now();
    const statuses: number[] = [];
    for (let index = 0; index < 40; index += 1) statuses.push(await forge());
    const seconds = (performance.now() - started) / 1000;

    const failures = statuses.filter((status) => status === 401).length;
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    expect(statuses.slice(0, AUTH_FAILURES.burst)).toEqual(Array(AUTH_FAILURES.burst).fill(401));
    // Without the wait, all 40 were answered 401 within the first statement's 200 ms.
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
    // The shared bucket's bound (a lease of 1 token: no slack), plus the one failure that found it empty.
    expect(failures).toBeLessThanOrEqual(Math.floor(AUTH_FAILURES.ratePerSecond * seconds + AUTH_FAILURES.burst) + 1);
    // Refusals come from memory: the flood cost about one statement per failure, not one per request.
    expect(leaseStatements).toBeLessThanOrEqual(failures);
  });
});
