/**
 * Goal: the projection rebuild leaves generated columns to the database: a table with one is
 * compared by its written columns, and the switch copies a changed and a missing row back
 * without writing the generated column (which PostgreSQL refuses).
 * Method: the messaging migrations on a private real PostgreSQL, a table of its own with a
 * generated column, events appended through appendToStream and a folder of a few lines.
 */
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import { appendToStream, createEnvelope, MessagingEventHashChain1700000060380, MessagingSchema1700000000000 } from '@mp/shared-messaging';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { rebuildProjection, type RebuildableProjection } from './projection-rebuild';

class NamedThings1700000000001 implements MigrationInterface {
  name = 'NamedThings1700000000001';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE named_things (id TEXT PRIMARY KEY, name TEXT NOT NULL, name_length INTEGER GENERATED ALWAYS AS (length(name)) STORED)`,
    );
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE named_things`);
  }
}

const NAMED_THINGS: RebuildableProjection = {
  service: 'spec',
  name: 'named-things',
  description: 'things by name',
  tables: [{ name: 'named_things' }],
  streams: 'thing:%',
  folder: () => ({
    async apply(manager, streamId, events) {
      const name = (events[events.length - 1].envelope.data as { name: string }).name;
      await manager.query(`INSERT INTO named_things (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = excluded.name`, [streamId, name]);
    },
  }),
};

describe('projection rebuild of a table with a generated column, on real Postgres', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('prgen', [MessagingSchema1700000000000, MessagingEventHashChain1700000060380, NamedThings1700000000001]);
    for (const [id, name] of [
      ['thing:a', 'apple'],
      ['thing:b', 'banana'],
    ]) {
      const envelope = createEnvelope({ type: 'ThingNamed', schemaVersion: 1, source: 'spec', subject: id, correlationId: id, data: { name } });
      await appendToStream(dataSource.manager, id, 0, [envelope]);
      await dataSource.query(`INSERT INTO named_things (id, name) VALUES ($1, $2)`, [id, name]);
    }
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('compares and switches the written columns only, the generated one following them', async () => {
    expect((await rebuildProjection(dataSource, NAMED_THINGS, { switch: false })).differences).toEqual([]);
    await dataSource.query(`UPDATE named_things SET name = 'pear' WHERE id = 'thing:a'`);
    await dataSource.query(`DELETE FROM named_things WHERE id = 'thing:b'`);

    const switched = await rebuildProjection(dataSource, NAMED_THINGS, { switch: true });
    expect(switched.differences).toEqual([
      { table: 'named_things', key: { id: 'thing:a' }, kind: 'changed', column: 'name', live: 'pear', rebuilt: 'apple' },
      { table: 'named_things', key: { id: 'thing:b' }, kind: 'missing', rebuilt: { id: 'thing:b', name: 'banana' } },
    ]);
    expect(await dataSource.query(`SELECT id, name, name_length FROM named_things ORDER BY id`)).toEqual([
      { id: 'thing:a', name: 'apple', name_length: 5 },
      { id: 'thing:b', name: 'banana', name_length: 6 },
    ]);
  });
});
