/**
 * Goal: the writes a transaction holds back are sent as one statement that runs them in the
 * order they were made, whether or not they have a check or a RETURNING clause of their own: the
 * lock-ordering rules of every caller (origin circuit before endpoint run, a delivery's row before
 * its attempt's) are written in that order, and an order PostgreSQL picked instead deadlocked two
 * callback records. Two writers that make their writes in one order never deadlock, whatever
 * their statements look like. Method: a private database on the real PostgreSQL server; each
 * write takes nextval of one sequence, so the values say the order the writes ran in; two
 * transactions hold locks across a pause to race.
 */
import { migratedPrivateDatabase, recordStatements } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { executeOrDefer, transactionInFewTrips, withOneWriteStatement } from './one-write-statement';

describe('one write statement on real Postgres', () => {
  let dataSource: DataSource;
  let statements: string[];

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('onewrite', []);
    await dataSource.query(`CREATE SEQUENCE write_order`);
    await dataSource.query(`CREATE TABLE marks (name TEXT PRIMARY KEY, ran_as BIGINT)`);
    statements = recordStatements(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  beforeEach(async () => {
    await dataSource.query(`TRUNCATE marks`);
    await dataSource.query(`INSERT INTO marks (name, ran_as) SELECT unnest(ARRAY['a', 'b', 'c', 'd', 'e']), 0`);
    statements.length = 0;
  });

  const mark = (name: string, withCheck: boolean) => ({
    sql: `UPDATE marks SET ran_as = nextval('write_order') WHERE name = $1${withCheck ? ' RETURNING 1' : ''}`,
    params: [name],
    ...(withCheck ? { check: (rows: number) => expect(rows).toBe(1) } : {}),
  });

  it('runs the held-back writes in the order they were made, checked or not, in one statement', async () => {
    // Unchecked, checked, unchecked, checked, and an INSERT without RETURNING: PostgreSQL would
    // run the checked ones first and the others afterwards, last made first, were they not all read.
    await transactionInFewTrips(dataSource, async (manager) => {
      await executeOrDefer(manager, mark('a', false));
      await executeOrDefer(manager, mark('b', true));
      await executeOrDefer(manager, mark('c', false));
      await executeOrDefer(manager, mark('d', true));
      await executeOrDefer(manager, { sql: `INSERT INTO marks (name, ran_as) VALUES ($1, nextval('write_order'))`, params: ['f'] });
    });
    expect(statements).toHaveLength(1);
    const rows: Array<{ name: string; ran_as: string }> = await dataSource.query(`SELECT name, ran_as FROM marks WHERE ran_as > 0 ORDER BY ran_as`);
    expect(rows.map((row) => row.name)).toEqual(['a', 'b', 'c', 'd', 'f']);
  });

  it('never deadlocks two writers that take the same rows in the same order, one with a check in between', async () => {
    // Writer one locks 'a' in a statement of its own (a read of it needed first), then 'b' with
    // its other writes; writer two makes the same two writes in one statement, 'a' unchecked and
    // 'b' checked. Were 'b' run first there, the two would wait on each other.
    const writerOne = transactionInFewTrips(dataSource, async (manager) => {
      await executeOrDefer(manager, mark('a', false));
      await manager.query(`SELECT ran_as FROM marks WHERE name = 'a'`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await executeOrDefer(manager, mark('b', true));
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const writerTwo = transactionInFewTrips(dataSource, async (manager) => {
      await executeOrDefer(manager, mark('c', true));
      await executeOrDefer(manager, mark('a', false));
      await executeOrDefer(manager, mark('b', true));
    });
    await expect(Promise.all([writerOne, writerTwo])).resolves.toBeDefined();
    const rows: Array<{ name: string }> = await dataSource.query(`SELECT name FROM marks WHERE ran_as > 0 ORDER BY ran_as`);
    // Writer two took 'c' at once, then waited for 'a' until writer one committed, then took 'a' and 'b'.
    expect(rows.map((row) => row.name)).toEqual(['c', 'a', 'b']);
  });

  it('keeps a write that has its own RETURNING as it is, and counts its rows for the check', async () => {
    const counted: number[] = [];
    await transactionInFewTrips(dataSource, async (manager) => {
      await withOneWriteStatement(manager, async () => {
        await executeOrDefer(manager, {
          sql: `UPDATE marks SET ran_as = nextval('write_order') WHERE name IN ('a', 'b', 'c') RETURNING name`,
          params: [],
          check: (rows) => counted.push(rows),
        });
        await executeOrDefer(manager, { sql: `DELETE FROM marks WHERE name = 'zzz'`, params: [], check: (rows) => counted.push(rows) });
      });
    });
    expect(counted).toEqual([3, 0]);
    expect(statements[0]).not.toMatch(/RETURNING name RETURNING/);
  });
});
