import { BatchGather } from './kafka-batch-gather';
import type { ReceivedMessage } from '../messaging-port';

const message = (partition: number, offset: number): ReceivedMessage => ({
  topic: 'payments.commands',
  partition,
  offset: String(offset),
  key: `m/${partition}`,
  envelope: {
    id: `00000000-0000-4000-8000-00000000000${partition}`,
    type: 'CreatePayment',
    schemaVersion: 1,
    source: 'spec',
    subject: 's',
    time: '2026-11-30T00:00:00.000Z',
    correlationId: 'c',
    causationId: null,
    data: {},
  },
});
const where = (messages: ReceivedMessage[]) => messages.map((received) => `${received.partition}@${received.offset}`);

describe('BatchGather (one call for the batches of one turn)', () => {
  it('hands the batches submitted in one turn to one call, each partition in order, and settles each as handled', async () => {
    const calls: string[][] = [];
    const gather = new BatchGather(async (messages) => void calls.push(where(messages)), 50);
    const outcomes = await Promise.all([
      gather.submit([message(0, 7), message(0, 8)], undefined),
      gather.submit([message(1, 3)], undefined),
      gather.submit([message(2, 4), message(2, 5)], undefined),
    ]);
    expect(outcomes).toEqual(['handled', 'handled', 'handled']);
    expect(calls).toEqual([['0@7', '0@8', '1@3', '2@4', '2@5']]);
  });

  it('leaves a lone message to its caller and makes no call, but handles a lone batch of several', async () => {
    const calls: string[][] = [];
    const gather = new BatchGather(async (messages) => void calls.push(where(messages)), 50);
    expect(await gather.submit([message(0, 1)], undefined)).toBe('alone');
    expect(calls).toEqual([]);
    expect(await gather.submit([message(0, 2), message(0, 3)], undefined)).toBe('handled');
    expect(calls).toEqual([['0@2', '0@3']]);
  });

  it('gathers what comes in a later turn into a call of its own', async () => {
    const calls: string[][] = [];
    const gather = new BatchGather(async (messages) => void calls.push(where(messages)), 50);
    const first = gather.submit([message(0, 1), message(0, 2)], undefined);
    await new Promise((resolve) => setImmediate(resolve));
    const second = gather.submit([message(1, 1), message(1, 2)], undefined);
    expect(await Promise.all([first, second])).toEqual(['handled', 'handled']);
    expect(calls).toEqual([
      ['0@1', '0@2'],
      ['1@1', '1@2'],
    ]);
  });

  it('rejects every submission of a call that failed, so each caller falls back to its own messages', async () => {
    const failure = new Error('the transaction rolled back');
    const gather = new BatchGather(async () => {
      throw failure;
    }, 50);
    const outcomes = await Promise.allSettled([gather.submit([message(0, 1)], undefined), gather.submit([message(1, 1)], undefined)]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
  });

  it('keeps each call within the maximum, whole submissions each, and settles a later call on its own', async () => {
    const calls: string[][] = [];
    const gather = new BatchGather(async (messages) => {
      if (messages.some((received) => received.partition === 2)) throw new Error('partition 2 is poison');
      calls.push(where(messages));
    }, 3);
    const outcomes = await Promise.allSettled([
      gather.submit([message(0, 1), message(0, 2)], undefined),
      gather.submit([message(1, 1)], undefined),
      gather.submit([message(2, 1), message(2, 2)], undefined),
    ]);
    expect(calls).toEqual([['0@1', '0@2', '1@1']]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
  });
});
