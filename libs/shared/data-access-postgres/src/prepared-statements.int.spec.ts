import type { Client } from 'pg';
import { DataSource } from 'typeorm';
import { PreparedStatementNames, preparingClientClass } from './prepared-statements';
import { migratedPrivateDatabase } from './private-test-database';

describe('prepared statements (real PostgreSQL)', () => {
  /** A database of its own (no migrations), whose URL the clients below connect to. */
  let database: DataSource;
  let url: string;
  let client: Client;
  let names: PreparedStatementNames;
  let logged: { log: string[]; warn: string[] };

  /** The statements this session keeps prepared, as the server lists them. */
  const preparedOnServer = async (): Promise<string[]> =>
    (await client.query<{ name: string }>({ text: 'SELECT name FROM pg_prepared_statements ORDER BY name' })).rows.map((row) => row.name);

  const connect = async (max: number) => {
    logged = { log: [], warn: [] };
    names = new PreparedStatementNames(max, { log: (line: string) => logged.log.push(line), warn: (line: string) => logged.warn.push(line) });
    const PreparingClient = preparingClientClass(names);
    client = new PreparingClient({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY, label text NOT NULL)');
    await client.query("INSERT INTO items VALUES (1, 'one'), (2, 'two'), (3, 'three') ON CONFLICT DO NOTHING");
  };

  beforeAll(async () => {
    database = await migratedPrivateDatabase('prepared', []);
    url = (database.options as { url: string }).url;
  });
  afterEach(async () => {
    await client.end();
  });
  afterAll(async () => {
    await database.destroy();
  });

  it('runs a text unnamed the first time and as a named statement from its second use, with each call’s own values', async () => {
    await connect(10);
    const byId = 'SELECT id, label FROM items WHERE id = $1';
    expect((await client.query(byId, [1])).rows).toEqual([{ id: 1, label: 'one' }]);
    expect(await preparedOnServer()).toEqual([]);
    expect((await client.query(byId, [2])).rows).toEqual([{ id: 2, label: 'two' }]);
    expect((await client.query(byId, [3])).rows).toEqual([{ id: 3, label: 'three' }]);
    expect(await preparedOnServer()).toEqual(['mp_0']);
    expect(names.size).toBe(1);
  });

  it('answers callers that pass a callback as well as those that await', async () => {
    await connect(10);
    const byId = 'SELECT label FROM items WHERE id = $1';
    const viaCallback = (id: number) =>
      new Promise<string>((resolve, reject) =>
        client.query(byId, [id], (error: Error | null, result: { rows: Array<{ label: string }> }) => (error ? reject(error) : resolve(result.rows[0].label))),
      );
    expect(await viaCallback(1)).toBe('one');
    expect(await viaCallback(3)).toBe('three');
    expect(await preparedOnServer()).toEqual(['mp_0']);
  });

  it('never names a text whose columns follow the table’s (`*`), and names no more texts than its maximum', async () => {
    await connect(1);
    for (let run = 0; run < 3; run += 1) await client.query('SELECT * FROM items WHERE id = $1', [1]);
    expect(await preparedOnServer()).toEqual([]);
    for (let run = 0; run < 3; run += 1) await client.query('SELECT count(*) AS n FROM items WHERE id > $1', [0]);
    for (let run = 0; run < 3; run += 1) await client.query('SELECT label FROM items WHERE id < $1', [3]);
    // count(*) is no star column: it took the one slot; the later text runs unnamed.
    expect(await preparedOnServer()).toEqual(['mp_0']);
    expect(names.nameFor('SELECT label FROM items WHERE id < $1')).toBeUndefined();
    // The operator learns once that the cap was reached.
    expect(logged.log).toEqual([expect.stringContaining('1 statement texts are prepared, the most this service keeps')]);
  });

  it('forgets a statement whose result type the schema changed under it, and names it anew when it repeats', async () => {
    await connect(10);
    await client.query('CREATE TABLE widths (id int PRIMARY KEY, width int NOT NULL)');
    await client.query('INSERT INTO widths VALUES (1, 10)');
    const width = 'SELECT width FROM widths WHERE id = $1';
    await client.query(width, [1]);
    await client.query(width, [1]);
    expect(await preparedOnServer()).toEqual(['mp_0']);
    await client.query('ALTER TABLE widths ALTER COLUMN width TYPE bigint');
    await expect(client.query(width, [1])).rejects.toMatchObject({ code: '0A000' });
    // Unnamed, then under a new name: the next runs succeed.
    expect((await client.query(width, [1])).rows).toEqual([{ width: '10' }]);
    expect((await client.query(width, [1])).rows).toEqual([{ width: '10' }]);
    expect(await preparedOnServer()).toEqual(['mp_0', 'mp_1']);
  });

  it('stops naming statements once the server side loses them (a pooler that does not keep them)', async () => {
    await connect(10);
    const byId = 'SELECT label FROM items WHERE id = $1';
    await client.query(byId, [1]);
    await client.query(byId, [1]);
    // What a transaction-mode pooler without support does: the next server connection has no mp_0.
    await client.query('DEALLOCATE ALL');
    await expect(client.query(byId, [2])).rejects.toMatchObject({ code: '26000' });
    expect((await client.query(byId, [2])).rows).toEqual([{ label: 'two' }]);
    expect((await client.query(byId, [3])).rows).toEqual([{ label: 'three' }]);
    expect(await preparedOnServer()).toEqual([]);
    expect(names.size).toBe(0);
    expect(logged.warn).toEqual([expect.stringContaining('26000')]);
  });

  it('serves TypeORM as the pool’s client class: queries and transactions run named', async () => {
    await connect(10);
    const poolNames = new PreparedStatementNames(10);
    const dataSource = new DataSource({ type: 'postgres', url, extra: { Client: preparingClientClass(poolNames), max: 1 } });
    await dataSource.initialize();
    try {
      const labelOf = 'SELECT label FROM items WHERE id = $1';
      expect(await dataSource.query(labelOf, [1])).toEqual([{ label: 'one' }]);
      const inTransaction = await dataSource.transaction(async (manager) => {
        await manager.query('UPDATE items SET label = $2 WHERE id = $1', ['2', 'deux']);
        await manager.query('UPDATE items SET label = $2 WHERE id = $1', ['3', 'trois']);
        return manager.query(labelOf, [2]);
      });
      expect(inTransaction).toEqual([{ label: 'deux' }]);
      const server: Array<{ name: string; statement: string }> = await dataSource.query('SELECT name, statement FROM pg_prepared_statements ORDER BY name');
      // The update repeated first (inside the transaction), then the read.
      expect(server).toEqual([
        { name: 'mp_0', statement: 'UPDATE items SET label = $2 WHERE id = $1' },
        { name: 'mp_1', statement: labelOf },
      ]);
    } finally {
      await dataSource.destroy();
    }
  });
});
