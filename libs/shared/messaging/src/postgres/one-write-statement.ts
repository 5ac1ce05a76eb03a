import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/**
 * One data-modifying statement (INSERT, UPDATE or DELETE) with its own parameters, numbered
 * from $1, that a transaction may send later together with others.
 */
export interface WriteFragment {
  sql: string;
  params: unknown[];
  /**
   * Called with how many rows the statement wrote (the rows of its RETURNING clause when it has
   * one); throws when that says the write failed (a guarded update that found its row at another
   * version).
   */
  check?: (rowCount: number) => void;
  /** Turns the statement's error into the one its caller expects; undefined leaves it as it is. */
  translateError?: (error: unknown) => Error | undefined;
}

/** Where a transaction's pending writes are kept: its query runner's scratch space. */
const PENDING_WRITES = 'mp.pendingWrites';

function pendingWritesOf(manager: EntityManager): OneWriteStatement | undefined {
  return manager.queryRunner?.data?.[PENDING_WRITES] as OneWriteStatement | undefined;
}

/**
 * Runs `write` now, or, inside `withOneWriteStatement` or `transactionInFewTrips`, adds it to the
 * statement that scope sends (its check and error then come with that statement).
 */
export async function executeOrDefer(manager: EntityManager, write: WriteFragment): Promise<void> {
  const pending = pendingWritesOf(manager);
  if (pending) {
    pending.fragments.push(write);
    return;
  }
  await sendAsOne((query, parameters) => manager.query(query, parameters), [write]);
}

/**
 * Runs `work` in the transaction of `manager` with every write made through `executeOrDefer`
 * held back, then sends them all as one statement (data-modifying CTEs, in the order they were
 * made): an event append, its projection and its outbox rows are one round trip instead of
 * three. Any other statement sent on the transaction meanwhile (a read, an immediate write,
 * COMMIT) first sends what is pending, so every statement sees the writes made before it, as if
 * each had been sent at once. If `work` throws, nothing pending is sent (the transaction rolls back).
 * Outside a transaction (a manager without its own query runner) each write is sent at once.
 */
export async function withOneWriteStatement<T>(manager: EntityManager, work: () => Promise<T>): Promise<T> {
  const queryRunner = manager.queryRunner;
  if (!queryRunner?.data || pendingWritesOf(manager)) return work();
  const scope = new OneWriteStatement(queryRunner, false);
  try {
    const result = await work();
    await scope.flush();
    return result;
  } finally {
    scope.close();
  }
}

/**
 * A transaction of `dataSource` (like `dataSource.transaction`) in as few round trips as its work
 * allows (docs/decisions/one-round-trip-per-command.md): the writes held back as in
 * `withOneWriteStatement`, and BEGIN held back until something needs it — a write or locking
 * read that is sent at once, or a read after held-back writes. Plain reads before that run on
 * their own, as they would in the transaction (READ COMMITTED takes a snapshot per statement and
 * a plain read locks no row). Work whose writes all come after its reads then costs its reads
 * and one statement that writes everything, atomic by itself: no BEGIN and no COMMIT.
 */
export async function transactionInFewTrips<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const queryRunner = dataSource.createQueryRunner();
  const scope = new OneWriteStatement(queryRunner, true);
  try {
    await queryRunner.startTransaction();
    try {
      const result = await work(queryRunner.manager);
      await queryRunner.commitTransaction();
      return result;
    } catch (error) {
      await queryRunner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  } finally {
    scope.close();
    await queryRunner.release();
  }
}

/**
 * A read that takes no lock and changes nothing: it may run before the transaction begins.
 * Locking reads and functions with effects (advisory locks, settings, sequences) may not.
 */
function isPlainRead(query: string): boolean {
  return (
    /^\s*SELECT\b/i.test(query) &&
    !/\bFOR\s+(UPDATE|NO\s+KEY\s+UPDATE|SHARE|KEY\s+SHARE)\b/i.test(query) &&
    !/\b(pg_\w*lock\w*|set_config|nextval|setval|pg_notify)\s*\(/i.test(query)
  );
}

/** The pending writes of one query runner, and the stand-in for its `query` that sends them first. */
class OneWriteStatement {
  readonly fragments: WriteFragment[] = [];
  private readonly send: Send;
  private readonly ownQuery: PropertyDescriptor | undefined;
  /** With a held-back BEGIN: 'held' until it is needed, 'sent' once it is, 'none' when the work never needed it. */
  private begin: 'held' | 'sent' | 'none';

  constructor(
    private readonly queryRunner: QueryRunner,
    lazyBegin: boolean,
  ) {
    this.begin = lazyBegin ? 'held' : 'sent';
    this.send = queryRunner.query.bind(queryRunner) as Send;
    this.ownQuery = Object.getOwnPropertyDescriptor(queryRunner, 'query');
    (queryRunner.data as Record<string, unknown>)[PENDING_WRITES] = this;
    queryRunner.query = ((query: string, parameters?: unknown[], useStructuredResult?: boolean) =>
      this.query(query, parameters, useStructuredResult)) as QueryRunner['query'];
  }

  async flush(): Promise<void> {
    const fragments = this.fragments.splice(0);
    if (fragments.length > 0) await sendAsOne(this.send, fragments);
  }

  close(): void {
    delete (this.queryRunner.data as Record<string, unknown>)[PENDING_WRITES];
    if (this.ownQuery) Object.defineProperty(this.queryRunner, 'query', this.ownQuery);
    else delete (this.queryRunner as Partial<QueryRunner>).query;
  }

  private async query(query: string, parameters?: unknown[], useStructuredResult?: boolean): Promise<unknown> {
    if (this.begin !== 'sent') {
      // TypeORM's own transaction statements, while BEGIN is held back or was never needed.
      if (query === 'START TRANSACTION') return undefined;
      if (query === 'ROLLBACK') {
        this.fragments.splice(0);
        return undefined;
      }
      if (query === 'COMMIT') {
        // Nothing needed a transaction: the pending writes are one statement, atomic by itself.
        this.begin = 'none';
        await this.flush();
        return undefined;
      }
      if (this.fragments.length > 0 || !isPlainRead(query)) {
        this.begin = 'sent';
        await this.send('START TRANSACTION');
      }
    }
    await this.flush();
    return this.send(query, parameters, useStructuredResult);
  }
}

/** A RETURNING clause of the write itself (a fragment is one INSERT, UPDATE or DELETE: no subquery can hold one). */
const RETURNING_CLAUSE = /\bRETURNING\b/i;

type Send = (query: string, parameters?: unknown[], useStructuredResult?: boolean) => Promise<unknown>;

async function sendAsOne(send: Send, fragments: WriteFragment[]): Promise<void> {
  const params: unknown[] = [];
  const ctes = fragments.map((fragment, index) => {
    const offset = params.length;
    params.push(...fragment.params);
    // Each fragment numbers its parameters from $1; in the whole statement they follow the earlier ones'.
    const sql = fragment.sql.replace(/\$(\d+)/g, (_match, number: string) => `$${Number(number) + offset}`);
    return `w${index} AS (${RETURNING_CLAUSE.test(sql) ? sql : `${sql.trimEnd()} RETURNING 1`})`;
  });
  // The final SELECT reads every CTE, in the order the writes were made, and PostgreSQL runs
  // each one to completion when it is first read: so the rows are locked in that order, which is
  // the order the callers' lock-ordering rules are written in. A CTE the SELECT did not read
  // would run after the SELECT, in the reverse order of its declaration: two writers, one
  // locking A then B and one B then A in such a statement, deadlocked (an attempt's record
  // against another's, on an origin's circuit and an endpoint's run of failures). Hence the
  // RETURNING 1 added to a write that has none: a CTE is read only through its RETURNING. The
  // counts are also what the checks need (counted in SQL: TypeORM answers a bare UPDATE with
  // [rows, rowCount]).
  const counts = fragments.map((_fragment, index) => `(SELECT count(*)::int FROM w${index}) AS w${index}`);
  let row: Record<string, number>;
  try {
    [row] = (await send(`WITH ${ctes.join(', ')} SELECT ${counts.join(', ')}`, params)) as Array<Record<string, number>>;
  } catch (error) {
    for (const fragment of fragments) {
      const translated = fragment.translateError?.(error);
      if (translated) throw translated;
    }
    throw error;
  }
  fragments.forEach((fragment, index) => fragment.check?.(row[`w${index}`]));
}

/** The constraint a failed statement violated, from the driver's error or TypeORM's wrapper of it. */
export function violatedConstraint(error: unknown): string | undefined {
  const failed = error as { constraint?: string; driverError?: { constraint?: string } } | null;
  return failed?.constraint ?? failed?.driverError?.constraint;
}
