/**
 * Goal: the command core keeps its promises on a real PostgreSQL server: events appended at
 * the expected version, a conflicting writer retried by the policy and deciding again on the
 * new state, stored events upcast by their schemaVersion on the way back, hooks inside the
 * command's transaction (a failing hook writes nothing), and a state loaded from a row plus
 * only the events after it. Method: a toy counter aggregate on a private database.
 */
import { randomBytes } from 'node:crypto';
import { eventCodec, type Decider } from '@mp/shared-decider';
import {
  appendToStream,
  createEnvelope,
  MessagingEventHashChain1700000060380,
  MessagingSchema1700000000000,
  readStream,
  StreamVersionConflictError,
} from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { aggregateStream, handleCommand } from './handle-command';

type CounterEvent = { type: 'CounterIncremented'; data: { by: number } } | { type: 'CounterClosed'; data: { reason: string } };
type CounterCommand = { type: 'Increment'; by: number; limit: number } | { type: 'Close' };
type Counter = { total: number; closed: boolean };

const counter: Decider<Counter, CounterCommand, CounterEvent> = {
  initialState: () => ({ total: 0, closed: false }),
  decide: (command, state) => {
    if (state.closed) return [];
    if (command.type === 'Close') return [{ type: 'CounterClosed', data: { reason: 'done' } }];
    if (state.total + command.by > command.limit) throw new DomainError('INSUFFICIENT_FUNDS', 'over the limit');
    return [{ type: 'CounterIncremented', data: { by: command.by } }];
  },
  evolve: (state, event) => (event.type === 'CounterIncremented' ? { ...state, total: state.total + event.data.by } : { ...state, closed: true }),
};

// Version 0 of CounterIncremented stored `step` instead of `by`.
const codec = eventCodec<CounterEvent>({
  CounterIncremented: { version: 1, upcasters: { 0: (data: { step: number }) => ({ by: data.step }) } },
  CounterClosed: { version: 1 },
});

const runId = `c${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;

describe('handleCommand on real Postgres', () => {
  let dataSource: DataSource;
  const causation = { id: 'cause-1', correlationId: 'req_1' };
  const envelope = { source: 'test', subject: 'counter', causation };

  beforeAll(async () => {
    const admin = new Client({ connectionString: process.env['TEST_PG_ADMIN_URL'] });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${runId}"`);
    await admin.end();
    const url = new URL(process.env['TEST_PG_ADMIN_URL'] ?? '');
    url.pathname = `/${runId}`;
    dataSource = new DataSource({
      type: 'postgres',
      url: url.toString(),
      migrations: [MessagingSchema1700000000000, MessagingEventHashChain1700000060380],
      extra: { max: 12 },
    });
    await dataSource.initialize();
    await dataSource.runMigrations();
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('appends at the expected version, with the schema version of each type, and adds nothing for a repeat', async () => {
    const streamId = 'counter:append';
    const first = await handleCommand(counter, streamId, { type: 'Increment', by: 2, limit: 10 }, { transaction: { dataSource }, codec, envelope });
    expect([first.version, first.state, first.eventsRead]).toEqual([1, { total: 2, closed: false }, 0]);
    expect(first.envelopes.map((stored) => [stored.type, stored.schemaVersion, stored.causationId])).toEqual([['CounterIncremented', 1, 'cause-1']]);
    await handleCommand(counter, streamId, { type: 'Close' }, { transaction: { dataSource }, codec, envelope });
    const repeat = await handleCommand(counter, streamId, { type: 'Close' }, { transaction: { dataSource }, codec, envelope });
    expect([repeat.events, repeat.version, repeat.eventsRead]).toEqual([[], 2, 2]);
  });

  it('upcasts stored events by their schemaVersion when it folds them', async () => {
    const streamId = 'counter:upcast';
    await appendToStream(dataSource.manager, streamId, 0, [
      createEnvelope({ type: 'CounterIncremented', schemaVersion: 0, source: 'test', subject: 'counter', data: { step: 5 }, correlationId: 'old' }),
    ]);
    const loaded = await aggregateStream(dataSource.manager, counter, streamId, { codec });
    expect(loaded.state).toEqual({ total: 5, closed: false });
    expect(
      (await handleCommand(counter, streamId, { type: 'Increment', by: 5, limit: 10 }, { transaction: { dataSource }, codec, envelope })).state.total,
    ).toBe(10);
  });

  it('retries a writer that lost the race, which then decides on the winner’s state', async () => {
    const streamId = 'counter:race';
    // Ten writers read version 0 at once; each conflict re-reads and decides again. The limit
    // lets exactly six increments of 1 through, whatever the interleaving.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        handleCommand(
          counter,
          streamId,
          { type: 'Increment', by: 1, limit: 6 },
          { transaction: { dataSource, retry: { attempts: 20, firstDelayMs: 5, maxDelayMs: 50 } }, codec, envelope },
        ),
      ),
    );
    const reasons = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(reasons.every((reason) => reason instanceof DomainError && reason.code === 'INSUFFICIENT_FUNDS')).toBe(true);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(6);
    expect((await readStream(dataSource.manager, streamId)).version).toBe(6);
  });

  it('lets a conflict reach the caller when the command joins the caller’s transaction', async () => {
    const streamId = 'counter:joined';
    await handleCommand(counter, streamId, { type: 'Increment', by: 1, limit: 10 }, { transaction: { dataSource }, codec, envelope });
    const joined = dataSource.transaction((manager) =>
      handleCommand(
        counter,
        streamId,
        { type: 'Increment', by: 1, limit: 10 },
        {
          transaction: { manager },
          codec,
          envelope,
          // Another writer appends version 2 between this command's read and its append.
          beforeAppend: async () => {
            await appendToStream(dataSource.manager, streamId, 1, [
              createEnvelope({ type: 'CounterIncremented', schemaVersion: 1, source: 'test', subject: 'counter', data: { by: 1 }, correlationId: 'other' }),
            ]);
          },
        },
      ),
    );
    await expect(joined).rejects.toBeInstanceOf(StreamVersionConflictError);
  });

  it('runs the hooks in the command’s transaction: a failing hook leaves nothing written', async () => {
    const streamId = 'counter:hooks';
    await dataSource.query(`CREATE TABLE counter_totals (stream_id TEXT PRIMARY KEY, total INTEGER NOT NULL, version INTEGER NOT NULL)`);
    const project = async (manager: import('typeorm').EntityManager, appended: { state: Counter; version: number }) => {
      await manager.query(`INSERT INTO counter_totals VALUES ($1, $2, $3) ON CONFLICT (stream_id) DO UPDATE SET total = $2, version = $3`, [
        streamId,
        appended.state.total,
        appended.version,
      ]);
    };
    await handleCommand(counter, streamId, { type: 'Increment', by: 3, limit: 10 }, { transaction: { dataSource }, codec, envelope, afterAppend: project });
    const failing = handleCommand(
      counter,
      streamId,
      { type: 'Increment', by: 3, limit: 10 },
      {
        transaction: { dataSource },
        codec,
        envelope,
        afterAppend: async (manager, appended) => {
          await project(manager, appended);
          throw new Error('projection failed');
        },
      },
    );
    await expect(failing).rejects.toThrow('projection failed');
    expect(await dataSource.query(`SELECT total, version FROM counter_totals`)).toEqual([{ total: 3, version: 1 }]);
    expect((await readStream(dataSource.manager, streamId)).version).toBe(1);
  });

  it('starts from a loaded row and reads only the events after its version', async () => {
    const streamId = 'counter:from-row';
    for (let index = 0; index < 30; index += 1)
      await handleCommand(counter, streamId, { type: 'Increment', by: 1, limit: 100 }, { transaction: { dataSource }, codec, envelope });
    // A row that is 2 events behind, as a snapshot taken earlier would be.
    const fromRow = await aggregateStream(dataSource.manager, counter, streamId, {
      codec,
      loadState: async () => ({ state: { total: 28, closed: false }, version: 28 }),
    });
    expect([fromRow.state.total, fromRow.version, fromRow.eventsRead]).toEqual([30, 30, 3]);
    const ahead = aggregateStream(dataSource.manager, counter, streamId, {
      codec,
      loadState: async () => ({ state: { total: 31, closed: false }, version: 31 }),
    });
    await expect(ahead).rejects.toThrow('version 31, which the event store does not have');
  });

  it('from a row that is the stream head (current), reads no event and checks the row against the store in the append itself', async () => {
    const streamId = 'counter:current-row';
    for (let index = 0; index < 3; index += 1)
      await handleCommand(counter, streamId, { type: 'Increment', by: 1, limit: 100 }, { transaction: { dataSource }, codec, envelope });
    const statements: string[] = [];
    // Counted where every statement of the transaction goes: its query runner.
    const counted = (manager: import('typeorm').EntityManager) => {
      const runner = manager.queryRunner as import('typeorm').QueryRunner;
      const send = runner.query.bind(runner) as (sql: string, parameters?: unknown[]) => Promise<unknown>;
      runner.query = ((sql: string, parameters?: unknown[]) => (statements.push(sql), send(sql, parameters))) as typeof runner.query;
      return manager;
    };
    const fromCurrentRow = (total: number, version: number) =>
      dataSource.transaction((manager) =>
        handleCommand(
          counter,
          streamId,
          { type: 'Increment', by: 1, limit: 100 },
          { transaction: { manager: counted(manager) }, codec, envelope, loadState: async () => ({ state: { total, closed: false }, version, current: true }) },
        ),
      );
    const result = await fromCurrentRow(3, 3);
    expect([result.state.total, result.version, result.eventsRead]).toEqual([4, 4, 0]);
    // One statement before the transaction's COMMIT: the append, with its check that version 3 is in the store.
    expect(statements.pop()).toBe('COMMIT');
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^WITH w0 AS \(INSERT INTO event_store/);
    expect((await readStream(dataSource.manager, streamId)).version).toBe(4);

    // A row ahead of the store is refused and nothing is appended; one behind it conflicts.
    await expect(fromCurrentRow(9, 9)).rejects.toThrow('version 9, which the event store does not have');
    await expect(fromCurrentRow(3, 3)).rejects.toBeInstanceOf(StreamVersionConflictError);
    expect((await readStream(dataSource.manager, streamId)).version).toBe(4);
  });
});
