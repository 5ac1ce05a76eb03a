/**
 * Goal: gateway restarts leave no Kafka topics behind (docs/decisions/gateway-reply-topics.md).
 * Each start of a replica has a new instance id and makes `gateway.replies.<instance>` (with its
 * dead-letter topic); a clean stop deletes its own, and after a crash (SIGKILL, no shutdown hook)
 * the surviving replicas' sweep deletes the orphan once its group has had no members for the
 * grace period, while a live replica's topic survives every sweep. Method: the real gateway
 * processes on the test broker, with a short sweep interval and grace, stopped three times with
 * SIGTERM and once with SIGKILL; the reply topics of this run's namespace are counted after each
 * step, and a create through every replica still gets its reply at the end.
 */
import { Kafka, logLevel } from 'kafkajs';
import { SignedClient, SystemUnderTest, testKafkaBrokers } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

const GRACE_SECONDS = 3;

describe('gateway reply topics do not grow with restarts', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  const admin = new Kafka({ clientId: 'reply-topics-count', brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin();

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: { gateway: { GATEWAY_REPLY_TOPIC_SWEEP_SECONDS: '1', GATEWAY_REPLY_TOPIC_GRACE_SECONDS: String(GRACE_SECONDS) } },
    });
    merchant = await system.createClient('Restarted shop');
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
    await system?.stop();
  });

  /** This run's reply topics (dead-letter topics included), without the namespace. */
  async function replyTopics(): Promise<string[]> {
    const prefix = `${system.runId}.`;
    return (await admin.listTopics())
      .filter((topic) => topic.startsWith(`${prefix}gateway.replies.`))
      .map((topic) => topic.slice(prefix.length))
      .sort();
  }

  /** The reply topic a running instance announced at boot. */
  function replyTopicOf(instance: 'gateway' | 'gateway-2'): string {
    const line = system.outputOf(instance).find((entry) => entry.includes('waiting for replies on '));
    const topic = /waiting for replies on (gateway\.replies\.[A-Za-z0-9._-]+)/.exec(line ?? '')?.[1];
    if (!topic) throw new Error(`${instance} announced no reply topic`);
    return topic;
  }
  const withDeadLetters = (...topics: string[]) => topics.flatMap((topic) => [topic, `${topic}.dlq`]).sort();

  async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** A create through `client` gets its reply: payments' producer writes to that replica's reply topic. */
  async function expectCreated(client: SignedClient): Promise<void> {
    const orderId = newOrderId('reply-topics');
    const created = await client.post('/v2/payments/incoming', incomingPayment(orderId));
    expect({ status: created.status, order_id: created.body.order_id }).toEqual({ status: 201, order_id: orderId });
  }

  it('deletes its own reply topic on each of three clean stops: one topic pair whatever the number of restarts, and replies still arrive', async () => {
    const seen: string[] = [];
    for (let restart = 1; restart <= 3; restart += 1) {
      const topic = replyTopicOf('gateway');
      seen.push(topic);
      expect(await replyTopics()).toEqual(withDeadLetters(topic));
      // Payments has written to this topic before it is deleted (kafkajs's producer keeps asking for its metadata).
      await expectCreated(merchant);
      expect(await system.terminate('gateway')).toBe(0);
      expect(await replyTopics()).toEqual([]);
      await system.startService('gateway');
    }
    expect(new Set([...seen, replyTopicOf('gateway')]).size).toBe(4);
    expect(await replyTopics()).toEqual(withDeadLetters(replyTopicOf('gateway')));
    await expectCreated(merchant);
  });

  it("sweeps a crashed replica's topic after the grace period, and never a live replica's", async () => {
    await system.startService('gateway-2');
    const crashed = replyTopicOf('gateway');
    await expectCreated(merchant);
    await system.kill('gateway');
    expect(await replyTopics()).toEqual(withDeadLetters(crashed, replyTopicOf('gateway-2')));
    await system.startService('gateway');
    const restarted = replyTopicOf('gateway');
    // The crashed member leaves its group when its session times out; the grace runs from then.
    await until(async () => !(await replyTopics()).includes(crashed), 60_000);
    expect(await replyTopics()).toEqual(withDeadLetters(restarted, replyTopicOf('gateway-2')));

    // Several grace periods later both live replicas keep their topics, and each still gets its replies.
    await new Promise((resolve) => setTimeout(resolve, 3 * GRACE_SECONDS * 1000));
    expect(await replyTopics()).toEqual(withDeadLetters(restarted, replyTopicOf('gateway-2')));
    for (const client of [merchant, new SignedClient(system.urlOf('gateway-2'), merchant.credentials)]) await expectCreated(client);
  });
});
