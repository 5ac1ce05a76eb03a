import { DomainError } from '@mp/shared-util-errors';

/**
 * An opaque list cursor: `<tag>:<position>` in base64url. The tag names the list, so a cursor of
 * one list is refused by another. Merchants hold cursors across deploys, so this format is a
 * wire contract: keep it. Written by hand because it is two lines of Buffer and a regex.
 */
export class PositionCursor {
  private readonly pattern: RegExp;

  constructor(
    private readonly tag: string,
    /** The error a cursor this API did not return gets; each list keeps the one it always answered. */
    private readonly refusal: () => DomainError = () =>
      new DomainError('VALIDATION_ERROR', 'The cursor is not one this API returned', [{ field: 'cursor', issue: 'is not valid' }]),
  ) {
    this.pattern = new RegExp(`^${tag}:(\\d{1,18})$`);
  }

  encode(position: string): string {
    return Buffer.from(`${this.tag}:${position}`, 'utf8').toString('base64url');
  }

  /** The position the cursor holds; throws the list's refusal for anything else. */
  decode(cursor: string): string {
    const match = this.pattern.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!match) throw this.refusal();
    return match[1];
  }
}

/** A WHERE clause built from `?`-placeholder conditions, numbered `$1…` in the order they are added. */
export class SqlConditions {
  readonly values: unknown[] = [];
  private readonly conditions: string[] = [];

  /** `sql` holds one `?`, bound to `value`. */
  add(sql: string, value: unknown): this {
    this.values.push(value);
    this.conditions.push(sql.replace('?', `$${this.values.length}`));
    return this;
  }

  /** A condition without a parameter. */
  addLiteral(sql: string): this {
    this.conditions.push(sql);
    return this;
  }

  /** `$n` for a parameter used outside the conditions (a LIMIT, say). */
  parameter(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  whereClause(): string {
    return this.conditions.length ? ` WHERE ${this.conditions.join(' AND ')}` : '';
  }
}

/** What runs the query: an EntityManager or a DataSource. */
export interface SqlRunner {
  query(sql: string, parameters: unknown[]): Promise<unknown>;
}

export interface NewestFirstQuery<Row> {
  /** `SELECT … FROM table`, without WHERE, ORDER BY or LIMIT. */
  select: string;
  /** The list's filters; the cursor's condition is added to them. */
  where: SqlConditions;
  /**
   * A bigint column that only grows, qualified by its table (`orders.list_position`): ORDER BY
   * takes a bare name for an output column first, and one cast to text would sort "9" after "25".
   */
  positionColumn: string;
  positionOf(row: Row): string;
  cursor: PositionCursor;
  /** The client's cursor, the `next_cursor` of the previous page. */
  after?: string;
  limit: number;
}

export interface NewestFirstPage<Row> {
  rows: Row[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * One page of a list, newest first, by keyset over a growing position: rows added while a client
 * pages appear before its first page, never inside later pages (no gaps, no repeats). Fetches
 * limit + 1 rows to know whether another page exists without counting.
 */
export async function fetchNewestFirstPage<Row>(runner: SqlRunner, query: NewestFirstQuery<Row>): Promise<NewestFirstPage<Row>> {
  const { where } = query;
  if (!/^\w+\.\w+$/.test(query.positionColumn))
    throw new Error(`the position column must be qualified by its table (table.column), got ${query.positionColumn}`);
  if (query.after !== undefined) where.add(`${query.positionColumn} < ?`, query.cursor.decode(query.after));
  const limit = where.parameter(query.limit + 1);
  const rows = (await runner.query(`${query.select}${where.whereClause()} ORDER BY ${query.positionColumn} DESC LIMIT ${limit}`, where.values)) as Row[];
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  return { rows: page, hasMore, nextCursor: hasMore ? query.cursor.encode(query.positionOf(page[page.length - 1])) : null };
}

/** The page fields every list's query string carries, already validated by its request DTO. */
export interface PageQueryFields {
  limit?: string;
  cursor?: string;
  created_from?: string;
  created_to?: string;
}

/** Decisions: `limit` 1 to 100, default 50. */
export const DEFAULT_PAGE_LIMIT = 50;

/** A list query's page and creation window as a store's filter takes them. */
export function pageFilterOf(query: PageQueryFields): { limit: number; cursor?: string; createdFrom?: Date; createdTo?: Date } {
  return {
    limit: query.limit === undefined ? DEFAULT_PAGE_LIMIT : Number(query.limit),
    cursor: query.cursor,
    createdFrom: query.created_from === undefined ? undefined : new Date(query.created_from),
    createdTo: query.created_to === undefined ? undefined : new Date(query.created_to),
  };
}

/**
 * Gives an existing table the growing `list_position` a newest-first list pages by: numbered in
 * `orderBy` order for the rows already there, from a sequence for every row after them, with a
 * unique index for the keyset. For migrations; `table` and `orderBy` are the migration's own text.
 */
export async function addListPosition(runner: SqlRunner, table: string, orderBy: string): Promise<void> {
  const sequence = `${table}_list_position_seq`;
  await runner.query(`CREATE SEQUENCE ${sequence} AS BIGINT`, []);
  await runner.query(`ALTER TABLE ${table} ADD COLUMN list_position BIGINT`, []);
  await runner.query(
    `UPDATE ${table} SET list_position = numbered.position FROM (SELECT ctid AS row_id, nextval('${sequence}') AS position FROM (SELECT ctid FROM ${table} ORDER BY ${orderBy}) AS ordered) AS numbered WHERE ${table}.ctid = numbered.row_id`,
    [],
  );
  await runner.query(`ALTER TABLE ${table} ALTER COLUMN list_position SET DEFAULT nextval('${sequence}'), ALTER COLUMN list_position SET NOT NULL`, []);
  await runner.query(`ALTER SEQUENCE ${sequence} OWNED BY ${table}.list_position`, []);
  await runner.query(`CREATE UNIQUE INDEX ${table}_position ON ${table} (list_position DESC)`, []);
}
