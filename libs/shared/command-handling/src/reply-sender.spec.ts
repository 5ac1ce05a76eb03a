/**
 * Goal: replies reach the broker after the commit without ever blocking or failing the intake: a
 * reply topic is checked once before its first reply, replies to a topic that is gone are
 * dropped (the rest of the batch is sent), and after a failed send or the known topics' lifetime
 * the topics are checked again, so the names of replicas long gone are not kept.
 * Method: the sender on a port that records its calls (the intake's own tests run it with a real
 * PostgreSQL; here only the sender's decisions are at stake).
 */
import { createEnvelope, type OutgoingMessage } from '@mp/shared-messaging';
import { KNOWN_TOPICS_LIFETIME_MS, ReplySender } from './reply-sender';

const reply = (topic: string): OutgoingMessage => ({
  topic,
  key: 'req_1',
  envelope: createEnvelope({ type: 'CommandReply', schemaVersion: 1, source: 'test', subject: 's', data: {}, correlationId: 'req_1' }),
});
const sent = () => new Promise((resolve) => setImmediate(resolve));

describe('ReplySender', () => {
  let existing: Set<string>;
  let checks: string[][];
  let published: string[][];
  let failNext: boolean;
  const port = {
    existingTopics: async (topics: string[]) => {
      checks.push(topics);
      return new Set(topics.filter((topic) => existing.has(topic)));
    },
    publish: async (messages: OutgoingMessage[]) => {
      published.push(messages.map(({ topic }) => topic));
      if (failNext) {
        failNext = false;
        throw new Error('broker unreachable');
      }
    },
  };

  beforeEach(() => {
    existing = new Set(['gateway.replies.a', 'gateway.replies.b']);
    checks = [];
    published = [];
    failNext = false;
  });

  it('checks a reply topic once, before its first reply', async () => {
    const sender = new ReplySender(port);
    sender.send([reply('gateway.replies.a'), reply('gateway.replies.a')]);
    await sent();
    sender.send([reply('gateway.replies.a'), reply('gateway.replies.b')]);
    await sent();
    expect(checks).toEqual([['gateway.replies.a'], ['gateway.replies.b']]);
    expect(published).toEqual([
      ['gateway.replies.a', 'gateway.replies.a'],
      ['gateway.replies.a', 'gateway.replies.b'],
    ]);
  });

  it('drops the replies to a replica that is gone and sends the others', async () => {
    const sender = new ReplySender(port);
    sender.send([reply('gateway.replies.gone'), reply('gateway.replies.a')]);
    await sent();
    expect(published).toEqual([['gateway.replies.a']]);
  });

  it('forgets the topics it knows after their lifetime: a replica long gone leaves no name behind, a live one is checked once more', async () => {
    let now = 1_000_000;
    const sender = new ReplySender(port, () => now);
    sender.send([reply('gateway.replies.a'), reply('gateway.replies.b')]);
    await sent();
    existing.delete('gateway.replies.b');
    now += KNOWN_TOPICS_LIFETIME_MS - 1;
    sender.send([reply('gateway.replies.a')]);
    await sent();
    now += 1;
    sender.send([reply('gateway.replies.a'), reply('gateway.replies.b')]);
    await sent();
    expect(checks).toEqual([
      ['gateway.replies.a', 'gateway.replies.b'],
      ['gateway.replies.a', 'gateway.replies.b'],
    ]);
    expect(published).toEqual([['gateway.replies.a', 'gateway.replies.b'], ['gateway.replies.a'], ['gateway.replies.a']]);
  });

  it('checks the topics again after a failed send, and the failure reaches no caller', async () => {
    const sender = new ReplySender(port);
    failNext = true;
    sender.send([reply('gateway.replies.a')]);
    await sent();
    existing.delete('gateway.replies.a');
    sender.send([reply('gateway.replies.a')]);
    await sent();
    expect(checks).toEqual([['gateway.replies.a'], ['gateway.replies.a']]);
    expect(published).toEqual([['gateway.replies.a']]);
  });
});
