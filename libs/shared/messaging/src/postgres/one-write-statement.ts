import type { EntityManager, QueryRunner } from 'typeorm';

/**
 * One data-modifying statement (INSERT, UPDATE or DELETE) with its own parameters, numbered
 * from $1, that a transaction may send later together with others.
 */
export interface WriteFragment {
  sql: string;
  params: unknown[];
  /**
   * Called with how many rows the statement's RETURNING clause gave (it needs one); throws when
   * that says the write failed (a guarded update that found its row at another version).
   */
  check?: (rowCount: number) => void;
  /** Turns the statement's error into the one its caller expects; undefined leaves it as it is. */
  translateError?: (error: unknown) => Error | undefined;
}

/** Where `withOneWriteStatement` keeps a transaction's pending writes: its query runner's scratch space. */
const PENDING_WRITES = 'mp.pendingWrites';

interface PendingWrites {
  fragments: WriteFragment[];
  flush: () => Promise<void>;
}

function pendingWritesOf(manager: EntityManager): PendingWrites | undefined {
  return manager.queryRunner?.data?.[PENDING_WRITES] as PendingWrites | undefined;
}

/**
 * Runs `write` now, or, inside `withOneWriteStatement`, adds it to the statement that scope
 * sends (its check and error then come with that statement).
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
  const data = queryRunner.data as Record<string, unknown>;
  const send = queryRunner.query.bind(queryRunner) as Send;
  const pending: PendingWrites = {
    fragments: [],
    flush: async () => {
      const fragments = pending.fragments.splice(0);
      if (fragments.length > 0) await sendAsOne(send, fragments);
    },
  };
  const sendAfterPending = (async (query: string, parameters?: unknown[], useStructuredResult?: boolean) => {
    await pending.flush();
    return send(query, parameters, useStructuredResult);
  }) as QueryRunner['query'];
  const ownQuery = Object.getOwnPropertyDescriptor(queryRunner, 'query');
  data[PENDING_WRITES] = pending;
  queryRunner.query = sendAfterPending;
  try {
    const result = await work();
    await pending.flush();
    return result;
  } finally {
    delete data[PENDING_WRITES];
    if (ownQuery) Object.defineProperty(queryRunner, 'query', ownQuery);
    else delete (queryRunner as Partial<QueryRunner>).query;
  }
}

type Send = (query: string, parameters?: unknown[], useStructuredResult?: boolean) => Promise<unknown>;

async function sendAsOne(send: Send, fragments: WriteFragment[]): Promise<void> {
  const params: unknown[] = [];
  const ctes = fragments.map((fragment, index) => {
    const offset = params.length;
    params.push(...fragment.params);
    // Each fragment numbers its parameters from $1; in the whole statement they follow the earlier ones'.
    return `w${index} AS (${fragment.sql.replace(/\$(\d+)/g, (_match, number: string) => `$${Number(number) + offset}`)})`;
  });
  // Every data-modifying CTE runs to completion whether or not it is read; the counts are what
  // the checks need (counted in SQL: TypeORM answers a bare UPDATE with [rows, rowCount]).
  const counts = fragments.flatMap((fragment, index) => (fragment.check ? [`(SELECT count(*)::int FROM w${index}) AS w${index}`] : []));
  let row: Record<string, number>;
  try {
    [row] = (await send(`WITH ${ctes.join(', ')} SELECT ${counts.length > 0 ? counts.join(', ') : '1'}`, params)) as Array<Record<string, number>>;
  } catch (error) {
    for (const fragment of fragments) {
      const translated = fragment.translateError?.(error);
      if (translated) throw translated;
    }
    throw error;
  }
  fragments.forEach((fragment, index) => fragment.check?.(row[`w${index}`]));
}
