/**
 * Goal: replicas lease tokens from the shared PostgreSQL bucket in blocks, so a steady stream
 * costs one statement per lease instead of one per request, without admitting more than the
 * bound. Method: the real store on a private database with the real migrations; "replicas" are
 * BucketLeases instances over it, and the statements each one sends are counted.
 */
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { BucketLeases, leaseSizeOf } from './bucket-lease';
import { GatewayRateLimitBuckets1700000020000 } from './rate-limit.migration';
import { GatewayRateLimitLeases1700000021000 } from './rate-limit-lease.migration';
import { RateLimitStore } from './rate-limit.store';

describe('bucket leases', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('rl', [GatewayRateLimitBuckets1700000020000, GatewayRateLimitLeases1700000021000]);
  });
  afterAll(async () => dataSource?.destroy());

  /** One replica: its own leases over the shared store, counting the statements it sends. */
  function replica(clock: () => number = Date.now) {
    const counted = { statements: 0 };
    const countingSource = {
      query: (sql: string, parameters?: unknown[]) => ((counted.statements += 1), dataSource.query(sql, parameters)),
    } as unknown as DataSource;
    return { leases: new BucketLeases(new RateLimitStore(countingSource), clock), counted };
  }
  const sharedTokens = async (key: string) =>
    Number((await dataSource.query('SELECT tokens FROM gateway_rate_limit_buckets WHERE bucket_key = $1', [key]))[0].tokens);

  it('sizes a lease at a tenth of the rate or the burst, whichever is smaller, at least one token and at most 100', () => {
    expect(leaseSizeOf({ ratePerSecond: 100, burst: 200 })).toBe(10);
    expect(leaseSizeOf({ ratePerSecond: 5, burst: 10 })).toBe(1);
    expect(leaseSizeOf({ ratePerSecond: 1000, burst: 20 })).toBe(2);
    expect(leaseSizeOf({ ratePerSecond: 1_000_000, burst: 1_000_000 })).toBe(100);
  });

  it('spends a burst from the lease without touching PostgreSQL: one statement per lease of 10 tokens', async () => {
    const { leases, counted } = replica();
    const policy = { ratePerSecond: 100, burst: 200 };
    const answers = [];
    const started = performance.now();
    for (let index = 0; index < 30; index += 1) answers.push(await leases.take('merchant:burst', policy));
    expect(answers.every((answer) => answer.allowed)).toBe(true);
    expect(counted.statements).toBe(3);
    // The shared bucket gave out 30 tokens (and refilled meanwhile); what the replica still holds counts in Remaining.
    const refill = ((performance.now() - started) / 1000) * policy.ratePerSecond;
    expect(await sharedTokens('merchant:burst')).toBeLessThanOrEqual(200 - 30 + refill);
    expect(answers[0].tokens).toBeGreaterThanOrEqual(199);
    expect(answers[0].tokens).toBeLessThan(200);
  });

  it('joins requests that miss while a lease is in flight into the next statement instead of one each', async () => {
    const { leases, counted } = replica();
    const answers = await Promise.all(Array.from({ length: 40 }, () => leases.take('merchant:concurrent', { ratePerSecond: 5, burst: 100 })));
    expect(answers.every((answer) => answer.allowed)).toBe(true);
    // Lease size 1 at this rate: the first statement takes 1, the next takes the 39 that queued behind it.
    expect(counted.statements).toBe(2);
  });

  it('refills: a spent lease takes the next from the shared bucket, and leftovers are forgotten after the lease lifetime', async () => {
    let now = 1_000_000;
    const { leases, counted } = replica(() => now);
    const policy = { ratePerSecond: 100, burst: 200 };
    for (let index = 0; index < 10; index += 1) expect((await leases.take('merchant:refill', policy)).allowed).toBe(true);
    expect(counted.statements).toBe(1);
    expect((await leases.take('merchant:refill', policy)).allowed).toBe(true);
    expect(counted.statements).toBe(2);
    // 9 leased tokens left locally; past the lifetime they are forgotten and the next request asks PostgreSQL.
    now += 1_001;
    expect((await leases.take('merchant:refill', policy)).allowed).toBe(true);
    expect(counted.statements).toBe(3);
  });

  it('refuses from memory once the shared bucket was found empty, until its next token is due, with an honest Retry-After', async () => {
    const { leases, counted } = replica();
    const policy = { ratePerSecond: 1, burst: 2 };
    expect((await leases.take('merchant:empty', policy)).allowed).toBe(true);
    expect((await leases.take('merchant:empty', policy)).allowed).toBe(true);
    const refused = await leases.take('merchant:empty', policy);
    expect(refused.allowed).toBe(false);
    const statementsAfterRefusal = counted.statements;
    const again = await leases.take('merchant:empty', policy);
    expect(again.allowed).toBe(false);
    expect(again.tokens).toBeLessThan(1);
    expect(again.policy).toEqual(policy);
    expect(counted.statements).toBe(statementsAfterRefusal);
  });

  it("applies an operator's override at the replica's next lease: within a lease's lifetime", async () => {
    let now = 2_000_000;
    const { leases } = replica(() => now);
    const defaults = { ratePerSecond: 100, burst: 200 };
    expect((await leases.take('merchant:override', defaults)).policy).toEqual(defaults);
    await new RateLimitStore(dataSource).setOverride('merchant:override', { ratePerSecond: 1, burst: 3 }, 'spec');
    // The tokens already leased are spent under the figures they were leased with...
    expect((await leases.take('merchant:override', defaults)).policy).toEqual(defaults);
    // ...and once the lease lapses, the next statement reads the override, and its lease size (1).
    now += 1_001;
    const answers = [];
    for (let index = 0; index < 4; index += 1) answers.push(await leases.take('merchant:override', defaults));
    expect(answers[0].policy).toEqual({ ratePerSecond: 1, burst: 3 });
    // The bucket held far more than 3: the override's burst caps it.
    expect(answers.map((answer) => answer.allowed)).toEqual([true, true, true, false]);
  });

  it('never lets two replicas leasing one bucket admit more than rate x time + burst', async () => {
    const policy = { ratePerSecond: 200, burst: 100 };
    const first = replica().leases;
    const second = replica().leases;
    const started = performance.now();
    let admitted = 0;
    const stream = async (leases: BucketLeases) => {
      while (performance.now() - started < 1_000) {
        const answers = await Promise.all(Array.from({ length: 4 }, () => leases.take('merchant:shared', policy)));
        admitted += answers.filter((answer) => answer.allowed).length;
        // Refusals from memory resolve at once: let the other replica and PostgreSQL's answers in.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await Promise.all([stream(first), stream(second)]);
    const seconds = (performance.now() - started) / 1000;
    // Both streams ran well past the limit, so the bucket was drained and refilled for the whole second.
    expect(admitted).toBeGreaterThanOrEqual(policy.burst + policy.ratePerSecond * 0.25);
    // The bucket started full and leases only ever come out of it: the exact bound, no slack.
    expect(admitted).toBeLessThanOrEqual(Math.floor(policy.ratePerSecond * seconds + policy.burst));
  });
});
