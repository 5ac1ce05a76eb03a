import { DomainError } from '@mp/shared-util-errors';
import { fetchNewestFirstPage, PositionCursor, SqlConditions } from './newest-first-page';

describe('newest-first keyset paging', () => {
  const cursor = new PositionCursor('p');

  it('round-trips a position through an opaque cursor, in the format clients already hold', () => {
    const encoded = cursor.encode('12345');
    expect(encoded).toBe(Buffer.from('p:12345', 'utf8').toString('base64url'));
    expect(cursor.decode(encoded)).toBe('12345');
  });

  it('refuses a tampered cursor, or one of another list, with the validation error', () => {
    const tampered = Buffer.from('p:12x', 'utf8').toString('base64url');
    const ofAnotherList = new PositionCursor('d').encode('7');
    for (const bad of [tampered, ofAnotherList, 'not-a-cursor']) {
      expect(() => cursor.decode(bad)).toThrow(DomainError);
      try {
        cursor.decode(bad);
      } catch (error) {
        expect((error as DomainError).code).toBe('VALIDATION_ERROR');
        expect((error as DomainError).details).toEqual([{ field: 'cursor', issue: 'is not valid' }]);
      }
    }
  });

  it('lets a list keep its own refusal', () => {
    const own = new PositionCursor(
      'w',
      () => new DomainError('VALIDATION_ERROR', 'The list filters are not valid', [{ field: 'cursor', issue: 'is not a cursor this API returned' }]),
    );
    expect(() => own.decode('x')).toThrow('The list filters are not valid');
  });

  it('fetches limit + 1 rows after the cursor and returns next_cursor only when more remain', async () => {
    const calls: Array<{ sql: string; values: unknown[] }> = [];
    const rows = [{ list_position: '9' }, { list_position: '8' }, { list_position: '7' }];
    const runner = { query: async (sql: string, values: unknown[]) => (calls.push({ sql, values }), rows.slice(0, Number(values[values.length - 1]))) };
    const where = new SqlConditions().add('merchant_id = ?', 'M1');
    const page = await fetchNewestFirstPage<{ list_position: string }>(runner, {
      select: 'SELECT * FROM t',
      where,
      positionColumn: 't.list_position',
      positionOf: (row) => row.list_position,
      cursor,
      after: cursor.encode('10'),
      limit: 2,
    });
    expect(calls[0].sql).toBe('SELECT * FROM t WHERE merchant_id = $1 AND t.list_position < $2 ORDER BY t.list_position DESC LIMIT $3');
    expect(calls[0].values).toEqual(['M1', '10', 3]);
    expect(page.rows).toEqual(rows.slice(0, 2));
    expect(page.hasMore).toBe(true);
    expect(cursor.decode(page.nextCursor as string)).toBe('8');

    const last = await fetchNewestFirstPage<{ list_position: string }>(runner, {
      select: 'SELECT * FROM t',
      where: new SqlConditions(),
      positionColumn: 't.list_position',
      positionOf: (row) => row.list_position,
      cursor,
      limit: 3,
    });
    expect(calls[1].sql).toBe('SELECT * FROM t ORDER BY t.list_position DESC LIMIT $1');
    expect(last).toEqual({ rows, hasMore: false, nextCursor: null });
  });

  it('refuses a position column not qualified by its table, which ORDER BY could take for an output column', async () => {
    const runner = { query: async () => [] };
    await expect(
      fetchNewestFirstPage(runner, {
        select: 'SELECT position::text AS list_position FROM t',
        where: new SqlConditions(),
        positionColumn: 'list_position',
        positionOf: () => '1',
        cursor,
        limit: 3,
      }),
    ).rejects.toThrow('qualified by its table');
  });
});
