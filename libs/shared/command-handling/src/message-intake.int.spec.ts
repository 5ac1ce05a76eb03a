/**
 * Goal: the one intake every consumer uses keeps its promises on a real PostgreSQL server: a
 * batch of commands with mixed outcomes commits once, with one inbox statement for all of it, and
 * its replies go out in one publish after the commit (none for a batch rolled back, and a failed
 * publish fails nothing that committed); a redelivered id is skipped (also when it sits twice in one batch); a
 * failure that is not a business rejection rolls the whole batch back and reaches the caller (so
 * the port falls back to one by one); a malformed envelope is poison; a single message is retried
 * on a version conflict; events are applied in lock-key order, keeping each key's order; a
 * single message is claimed with its effect's writes, and its repeat writes nothing and is never
 * poison, even when its effect fails (refused, or a unique key it already wrote); commands of
 * different lanes (merchants) run side by side in a batch's one transaction, each lane in order,
 * and a failed lane fails the batch only once the others have settled.
 * Method: a toy `things` table on a private database, the messaging schema, and every statement
 * the intake sends recorded (recordStatements); the replies are taken where the messaging port's
 * `publish` would take them, with the statements sent before each publish.
 */
import { randomUUID } from 'node:crypto';
import { migratedPrivateDatabase, recordStatements } from '@mp/shared-data-access-postgres';
import {
  createEnvelope,
  executeOrDefer,
  MessagingEventHashChain1700000060380,
  MessagingSchema1700000000000,
  PoisonMessageError,
  StreamVersionConflictError,
  type MessageEnvelope,
  type OutgoingMessage,
} from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { IsInt, IsString } from 'class-validator';
import type { DataSource, EntityManager } from 'typeorm';
import { CommandIntake, merchantLaneOf, MessageIntake, type CommandContract } from './message-intake';

class AddThingDto {
  @IsString()
  name!: string;

  @IsInt()
  size!: number;
}

const contract: CommandContract<'AddThing'> = { schemaVersion: 1, payloads: { AddThing: AddThingDto } };

function command(name: string, size: number, fields: { id?: string; schemaVersion?: number; type?: string } = {}): MessageEnvelope {
  return createEnvelope({
    id: fields.id,
    type: fields.type ?? 'AddThing',
    schemaVersion: fields.schemaVersion ?? 1,
    source: 'test',
    subject: name,
    data: { name, size },
    correlationId: `req_${name}`,
    replyTo: 'replies.test',
  });
}

describe('message intake on real Postgres', () => {
  let dataSource: DataSource;
  let statements: string[] = [];
  const count = (pattern: RegExp) => statements.filter((statement) => pattern.test(statement)).length;
  let failOn: string | null = null;
  let conflictsLeft = 0;
  /** Each publish of replies: what it sent, and the last statement sent before it. */
  let published: Array<{ messages: OutgoingMessage[]; after: string | undefined }> = [];
  let publishFails = false;
  const replyPort = {
    existingTopics: async (topics: string[]) => new Set(topics),
    publish: async (messages: OutgoingMessage[]) => {
      published.push({ messages, after: statements.at(-1) });
      if (publishFails) throw new Error('broker unreachable');
    },
  };

  const addThing = async (manager: EntityManager, envelope: MessageEnvelope) => {
    const { name, size } = envelope.data as { name: string; size: number };
    if (name === failOn) throw new Error('database went away');
    if (conflictsLeft > 0) {
      conflictsLeft -= 1;
      throw new StreamVersionConflictError(`thing:${name}`, 0);
    }
    if (size > 10) throw new DomainError('VALIDATION_ERROR', `${name} is too big`);
    await manager.query(`INSERT INTO things (name, size) VALUES ($1, $2)`, [name, size]);
    return { thing: name };
  };

  const commands = () =>
    new CommandIntake(dataSource, { inbox: 'things.commands', contract, reply: { type: 'CommandReply', source: 'test' }, run: addThing, replies: replyPort });

  /** The replies leave after the intake returns (it does not wait for them): let them go first. */
  const repliesSent = () => new Promise((resolve) => setImmediate(resolve));

  const replies = (): Array<{ topic: string; causation_id: string; data: { outcome: string } }> =>
    published.flatMap(({ messages }) =>
      messages.map(({ topic, envelope }) => ({ topic, causation_id: String(envelope.causationId), data: envelope.data as { outcome: string } })),
    );

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('intake', [MessagingSchema1700000000000, MessagingEventHashChain1700000060380]);
    statements = recordStatements(dataSource);
    await dataSource.query(`CREATE TABLE things (position BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, size INTEGER NOT NULL)`);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  beforeEach(async () => {
    failOn = null;
    conflictsLeft = 0;
    published = [];
    publishFails = false;
    await dataSource.query(`TRUNCATE things, inbox, outbox`);
    statements.length = 0;
  });

  it('commits a batch of mixed outcomes once with one inbox statement, then publishes a reply for each command in order, once', async () => {
    const batch = [command('a', 1), command('big', 99), command('b', 2), command('c', 3)];
    await commands().handleAll(batch);
    await repliesSent();

    expect(await dataSource.query(`SELECT name FROM things ORDER BY position`)).toEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    const written = replies();
    expect(written.map(({ causation_id }) => causation_id)).toEqual(batch.map(({ id }) => id));
    expect(written.map(({ data }) => data.outcome)).toEqual(['accepted', 'rejected', 'accepted', 'accepted']);
    expect(written.map(({ topic }) => topic)).toEqual(batch.map(() => 'replies.test'));
    expect(written[1].data).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    expect(count(/^START TRANSACTION/)).toBe(1);
    expect(count(/^COMMIT/)).toBe(1);
    expect(count(/INSERT INTO inbox/)).toBe(1);
    // The replies skip the outbox, and leave in one publish once the batch has committed.
    expect(count(/INSERT INTO outbox/)).toBe(0);
    expect(published.map(({ after }) => after)).toEqual(['COMMIT']);
  });

  it('publishes the reply of a single command after its commit, and a failed publish undoes nothing', async () => {
    publishFails = true;
    await commands().handle(command('a', 1));
    await repliesSent();

    expect(await dataSource.query(`SELECT name FROM things ORDER BY position`)).toEqual([{ name: 'a' }]);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM inbox`)).toEqual([{ n: 1 }]);
    expect(published).toHaveLength(1);
    expect(published[0].after).toBe('COMMIT');
    expect(replies().map(({ data }) => data.outcome)).toEqual(['accepted']);
  });

  it('skips a redelivered id, and an id that sits twice in one batch runs once', async () => {
    const first = command('a', 1);
    await commands().handle(first);
    const again = command('b', 2);
    await commands().handleAll([first, again, again, command('c', 3)]);
    await repliesSent();

    expect(await dataSource.query(`SELECT name FROM things ORDER BY position`)).toEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    expect(replies().map(({ causation_id }) => causation_id)).toEqual([first.id, again.id, expect.any(String)]);
  });

  it("claims a single message with its effect's writes: a repeat writes nothing, and its failing effect is no poison", async () => {
    const first = command('a', 1);
    await commands().handle(first);
    // The repeat's effect runs and fails on the unique name it wrote the first time: a repeat, skipped.
    await commands().handle(first);
    await repliesSent();
    expect(await dataSource.query(`SELECT name FROM things ORDER BY position`)).toEqual([{ name: 'a' }]);
    expect(replies().map(({ causation_id }) => causation_id)).toEqual([first.id]);

    // A consumer whose effect writes only through the one statement: the claim's conflict fails it.
    const writesOnce = new CommandIntake(dataSource, {
      inbox: 'things.commands',
      contract,
      reply: { type: 'CommandReply', source: 'test' },
      replies: replyPort,
      run: async (manager, envelope) => {
        await executeOrDefer(manager, {
          sql: `INSERT INTO things (name, size) VALUES ($1, 1) ON CONFLICT (name) DO UPDATE SET size = things.size + 1`,
          params: [(envelope.data as { name: string }).name],
        });
        return {};
      },
    });
    const second = command('b', 1);
    await writesOnce.handle(second);
    await writesOnce.handle(second);
    expect(await dataSource.query(`SELECT name, size FROM things ORDER BY position`)).toEqual([
      { name: 'a', size: 1 },
      { name: 'b', size: 1 },
    ]);

    // A fact refused on its repeat (its consumer did it already) is skipped, not dead-lettered.
    const seen = createEnvelope({ type: 'ThingSeen', schemaVersion: 1, source: 'test', subject: 'c', data: { name: 'c' }, correlationId: 'c' });
    const events = new MessageIntake<string>(dataSource, {
      inbox: 'things.events',
      refusedBy: 'the things',
      read: (envelope) => (envelope.data as { name: string }).name,
      apply: async (manager, messages) => {
        for (const { item } of messages) {
          if ((await manager.query(`SELECT 1 FROM things WHERE name = $1`, [item])).length > 0)
            throw new DomainError('DUPLICATE_ORDER', `${item} is there already`);
          await executeOrDefer(manager, { sql: `INSERT INTO things (name, size) VALUES ($1, 1)`, params: [item] });
        }
      },
    });
    await events.handle(seen);
    await expect(events.handle(seen)).resolves.toBeUndefined();
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM things WHERE name = 'c'`)).toEqual([{ n: 1 }]);
  });

  it('rolls the whole batch back on a failure that is not a business rejection, and throws it', async () => {
    failOn = 'b';
    await expect(commands().handleAll([command('a', 1), command('big', 99), command('b', 2)])).rejects.toThrow('database went away');

    expect(await dataSource.query(`SELECT count(*)::int AS n FROM things`)).toEqual([{ n: 0 }]);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM inbox`)).toEqual([{ n: 0 }]);
    await repliesSent();
    expect(published).toEqual([]);
  });

  describe('lanes (laneOf)', () => {
    /** What each command did when, its network wait (its size, in ms) between its start and its write. */
    let timeline: string[];
    const inLanes = () =>
      new CommandIntake(dataSource, {
        inbox: 'things.commands',
        contract,
        reply: { type: 'CommandReply', source: 'test' },
        replies: replyPort,
        laneOf: merchantLaneOf,
        run: async (manager, envelope) => {
          const { name, size } = envelope.data as { name: string; size: number };
          timeline.push(`start ${name}`);
          await new Promise((resolve) => setTimeout(resolve, size));
          if (name === failOn) throw new Error('database went away');
          await manager.query(`INSERT INTO things (name, size) VALUES ($1, $2)`, [name, size]);
          timeline.push(`end ${name}`);
          return { thing: name };
        },
      });
    const onMerchant = (merchant: string, name: string, waitMs: number) => ({ ...command(name, waitMs), subject: `merchant:${merchant}/order:${name}` });
    const at = (entry: string) => timeline.indexOf(entry);

    beforeEach(() => {
      timeline = [];
    });

    it("runs other merchants' commands while one waits, each merchant's in order, in one commit with the replies in batch order", async () => {
      const batch = [onMerchant('m1', 'x', 60), onMerchant('m2', 'y', 5), onMerchant('m1', 'z', 5), { ...command('p', 5), subject: 'payer-page:abc' }];
      await inLanes().handleAll(batch);
      await repliesSent();

      // y and p did not wait for x's network wait; z did, being the same merchant's.
      expect(at('end y')).toBeLessThan(at('end x'));
      expect(at('end p')).toBeLessThan(at('end x'));
      expect(at('start z')).toBeGreaterThan(at('end x'));
      expect(count(/^COMMIT/)).toBe(1);
      expect(count(/INSERT INTO inbox/)).toBe(1);
      expect(await dataSource.query(`SELECT name FROM things ORDER BY name`)).toEqual(['p', 'x', 'y', 'z'].map((name) => ({ name })));
      expect(published).toHaveLength(1);
      expect(replies().map(({ causation_id }) => causation_id)).toEqual(batch.map(({ id }) => id));
    });

    it('throws a failed lane only once the other lanes have settled, and writes nothing of the batch', async () => {
      failOn = 'y';
      await expect(inLanes().handleAll([onMerchant('m1', 'x', 60), onMerchant('m2', 'y', 5)])).rejects.toThrow('database went away');

      // x's write was sent before the rollback, not onto a transaction already rolled back.
      expect(timeline).toContain('end x');
      expect(await dataSource.query(`SELECT count(*)::int AS n FROM things`)).toEqual([{ n: 0 }]);
      expect(await dataSource.query(`SELECT count(*)::int AS n FROM inbox`)).toEqual([{ n: 0 }]);
      await repliesSent();
      expect(published).toEqual([]);
    });

    it('names the merchant of a merchant subject, and any other subject as its own lane', () => {
      expect(merchantLaneOf(onMerchant('m1', 'x', 1))).toBe('merchant:m1');
      expect(merchantLaneOf({ ...command('w', 1), subject: 'merchant:m1/withdrawal:w' })).toBe('merchant:m1');
      expect(merchantLaneOf({ ...command('p', 1), subject: 'payer-page:abc' })).toBe('payer-page:abc');
    });
  });

  it('turns a malformed envelope into PoisonMessageError before anything is written', async () => {
    const malformed = command('a', 1);
    const cases = [
      command('a', 1, { schemaVersion: 2 }),
      command('a', 1, { type: 'RemoveThing' }),
      command('a', 1, { type: 'toString' }),
      { ...malformed, data: { name: 'a', size: 'large' } },
    ];
    for (const envelope of cases) {
      await expect(commands().handle(envelope)).rejects.toBeInstanceOf(PoisonMessageError);
      await expect(commands().handleAll([command('ok', 1), envelope])).rejects.toBeInstanceOf(PoisonMessageError);
    }
    await expect(commands().handle({ ...malformed, data: { name: 'a', size: 'large' } })).rejects.toThrow('malformed AddThing payload: size');
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM inbox`)).toEqual([{ n: 0 }]);
  });

  it('retries a single message on a version conflict, but lets a batch’s conflict reach the caller', async () => {
    conflictsLeft = 2;
    await commands().handle(command('a', 1));
    expect(await dataSource.query(`SELECT name FROM things`)).toEqual([{ name: 'a' }]);

    conflictsLeft = 1;
    await expect(commands().handleAll([command('b', 1), command('c', 1)])).rejects.toBeInstanceOf(StreamVersionConflictError);
    expect(await dataSource.query(`SELECT name FROM things`)).toEqual([{ name: 'a' }]);
  });

  it('applies events in lock-key order keeping each key’s order, and makes a refused fact poison when it comes alone', async () => {
    const applied: string[] = [];
    const event = (key: string, sequence: number) =>
      createEnvelope({ type: 'ThingSeen', schemaVersion: 1, source: 'test', subject: key, data: { key, sequence }, correlationId: 'c' });
    const events = new MessageIntake<{ key: string; sequence: number }>(dataSource, {
      inbox: 'things.events',
      read: (envelope) => envelope.data as { key: string; sequence: number },
      lockKeyOf: ({ key }) => key,
      refusedBy: 'the things',
      apply: async (_manager, messages) => {
        for (const { item } of messages) {
          if (item.sequence < 0) throw new DomainError('ORDER_NOT_FOUND', 'no such thing');
          applied.push(`${item.key}${item.sequence}`);
        }
      },
    });
    await events.handleAll([event('m', 1), event('b', 1), event('m', 2), event('a', 1), event('b', 2)]);
    expect(applied).toEqual(['a1', 'b1', 'b2', 'm1', 'm2']);
    expect(count(/INSERT INTO inbox/)).toBe(1);

    const refused = event('z', -1);
    await expect(events.handle(refused)).rejects.toThrow(
      new PoisonMessageError(`ThingSeen ${refused.id} refused by the things: ORDER_NOT_FOUND no such thing`),
    );
    // In a batch the refusal rolls back and reaches the port as it is; one by one it is poison.
    await expect(events.handleAll([event('y', 1), refused])).rejects.toBeInstanceOf(DomainError);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM inbox WHERE message_id = $1`, [refused.id])).toEqual([{ n: 0 }]);
  });

  it('sends a one-statement effect without an inbox as that one statement, no transaction around it', async () => {
    const recorded = new MessageIntake<string>(dataSource, {
      inbox: null,
      singleStatement: true,
      read: (envelope) => (envelope.data as { name: string }).name,
      apply: async (manager, messages) => {
        await manager.query(`INSERT INTO things (name, size) SELECT unnest($1::text[]), 1 ON CONFLICT DO NOTHING`, [messages.map(({ item }) => item)]);
      },
    });
    await recorded.handleAll([command('a', 1), command('b', 1)]);
    await recorded.handle(command('a', 1));
    expect(await dataSource.query(`SELECT name FROM things ORDER BY position`)).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(statements.filter((statement) => !statement.startsWith('SELECT name FROM things'))).toEqual([
      expect.stringContaining('INSERT INTO things'),
      expect.stringContaining('INSERT INTO things'),
    ]);
  });

  it('claims ids case-insensitively, as the envelope allows either case', async () => {
    const id = randomUUID().toUpperCase();
    await commands().handle(command('a', 1, { id }));
    await commands().handleAll([command('a', 1, { id: id.toLowerCase() }), command('b', 1)]);
    expect(await dataSource.query(`SELECT name FROM things ORDER BY position`)).toEqual([{ name: 'a' }, { name: 'b' }]);
  });
});
