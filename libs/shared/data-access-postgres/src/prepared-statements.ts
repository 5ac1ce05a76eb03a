import { Logger } from '@nestjs/common';
import type { ConfigReader } from '@mp/shared-util-config';
import { Client, type QueryResult } from 'pg';

/** How many statements a service keeps prepared unless its `<SERVICE>_DATABASE_PREPARED_STATEMENTS_MAX` says otherwise. */
export const DEFAULT_PREPARED_STATEMENTS_MAX = 100;

/** `<PREFIX>_DATABASE_PREPARED_STATEMENTS_MAX`, read alike by every service's config (the configuration table's row). */
export function readPreparedStatementsMax(reader: ConfigReader, prefix: string): number {
  return reader.integer(`${prefix}_DATABASE_PREPARED_STATEMENTS_MAX`, {
    default: DEFAULT_PREPARED_STATEMENTS_MAX,
    min: 0,
    max: 1_000,
    description: 'statement texts each connection keeps prepared (parsed and planned once); 0 runs every statement unnamed, for a pooler that cannot keep them',
  });
}

/** A text is prepared on its second use: one seen once (a rare shape of a batch's statement) takes no slot. */
const USES_BEFORE_PREPARING = 2;

/** Texts counted towards USES_BEFORE_PREPARING before the count starts over: bounds the memory one-off texts take. */
const COUNTED_TEXTS_MAX = 1_000;

/**
 * A select list or RETURNING with `*`: its result columns follow the table's, and a server keeps
 * a prepared statement's result type, so a column added by a migration while this process runs
 * would fail it ("cached plan must not change result type"). Those stay unnamed. `count(*)` does
 * not match (a `(` precedes its star); a product `a * b` does, which only leaves it unprepared.
 */
const STAR_COLUMNS = /(^|[\s,])(\w+\.)?\*(\s|,|$)/;

/** The use count of a text that is never named (`*` columns). */
const NEVER_NAMED = -1;

/** SQLSTATEs that say the server's side of the connection does not keep our statements (a pooler without support for them). */
const SESSION_LOST_STATEMENT = new Set(['26000', '42P05']);
/** SQLSTATE of "cached plan must not change result type": the statement's tables changed under it. */
const FEATURE_NOT_SUPPORTED = '0A000';

/**
 * Which statement texts run as named prepared statements, for the whole process. PostgreSQL
 * parses and plans an unnamed statement every time it runs; a named one is parsed once per
 * connection and, after a few runs, planned once (a generic plan, where the planner finds it no
 * worse than planning for each value). For the services' short statements planning cost more
 * than running them (bench/results/history/2026-11-30-prepared-statements.md).
 *
 * Written here rather than taken from a package: node-postgres prepares a statement only when
 * the caller names it, and TypeORM never does; what is wanted is psycopg's policy (prepare a
 * text once it repeats, keep at most so many) behind TypeORM's `query`, which is this and the
 * client class below. Names are `mp_<n>`, the same text keeping its name for the life of the
 * process; once `max` texts are named, others run unnamed, so a connection never keeps more than
 * `max` statements and nothing needs deallocating.
 */
export class PreparedStatementNames {
  private readonly named = new Map<string, string>();
  private readonly uses = new Map<string, number>();
  private nextName = 0;
  private disabled = false;

  constructor(
    private readonly max: number,
    private readonly logger: Pick<Logger, 'log' | 'warn'> = new Logger('PreparedStatements'),
  ) {}

  /** The name to run `text` under, or undefined to run it unnamed. */
  nameFor(text: string): string | undefined {
    const known = this.named.get(text);
    if (known !== undefined || this.disabled || this.named.size >= this.max) return known;
    const counted = this.uses.get(text);
    if (counted === NEVER_NAMED) return undefined;
    const seen = (counted ?? 0) + 1;
    if (seen < USES_BEFORE_PREPARING || STAR_COLUMNS.test(text)) {
      if (this.uses.size >= COUNTED_TEXTS_MAX) this.uses.clear();
      // A `*` text is tested once; its later runs skip the pattern.
      this.uses.set(text, seen < USES_BEFORE_PREPARING ? seen : NEVER_NAMED);
      return undefined;
    }
    this.uses.delete(text);
    const name = `mp_${this.nextName}`;
    this.nextName += 1;
    this.named.set(text, name);
    if (this.named.size === this.max)
      this.logger.log(
        `${this.max} statement texts are prepared, the most this service keeps: later texts run unnamed (the service's DATABASE_PREPARED_STATEMENTS_MAX)`,
      );
    return name;
  }

  /** The text's statement failed for what preparing did to it: it starts over, unnamed, and gets a new name if it repeats. */
  forget(text: string): void {
    this.named.delete(text);
  }

  /** The server side does not keep statements (a pooler in transaction mode without support for them): no text is named again. */
  disable(reason: string): void {
    if (!this.disabled)
      this.logger.warn(
        `the database connection lost a prepared statement (${reason}): every statement runs unnamed from now on; behind a pooler in transaction mode, give it prepared-statement support or set the service's DATABASE_PREPARED_STATEMENTS_MAX to 0`,
      );
    this.disabled = true;
    this.named.clear();
  }

  get size(): number {
    return this.named.size;
  }
}

type QueryCallback = (error: Error | null, result?: QueryResult) => void;

/**
 * The pool's client class (node-postgres' `Pool` takes one in its options): a parameterised text
 * whose `PreparedStatementNames` gives a name runs as that named statement; everything else, and
 * every call with a query object, goes through as it came.
 */
export function preparingClientClass(names: PreparedStatementNames): typeof Client {
  return class PreparingClient extends Client {
    override query(...args: unknown[]): never {
      const [text, values, callback] = args as [unknown, unknown, QueryCallback | undefined];
      const name = typeof text === 'string' && Array.isArray(values) && values.length > 0 ? names.nameFor(text) : undefined;
      const run = super.query as (...queryArgs: unknown[]) => never;
      if (name === undefined) return run.apply(this, args);
      const config = { name, text: text as string, values: values as unknown[] };
      const failed = (error: Error): void => {
        const code = (error as { code?: string }).code;
        if (code !== undefined && SESSION_LOST_STATEMENT.has(code)) names.disable(`${code}: ${error.message}`);
        else if (code === FEATURE_NOT_SUPPORTED) names.forget(config.text);
      };
      if (typeof callback === 'function')
        return run.call(this, config, (error: Error | null, result?: QueryResult) => {
          if (error) failed(error);
          callback(error, result);
        });
      return (run.call(this, config) as Promise<QueryResult>).catch((error: Error) => {
        failed(error);
        throw error;
      }) as never;
    }
  } as typeof Client;
}
