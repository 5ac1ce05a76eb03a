/**
 * Goal: the command reply path survives consumer-group rebalances and several gateway
 * replicas (Nest's ClientKafka request-reply does not: nestjs/nest#2984). Method: two gateway
 * replicas take creates while payments replicas join the command group (a rebalance) and one
 * is then killed with SIGKILL (a rebalance after its session expires). Every create must get
 * its real answer, and every order must exist exactly once.
 */
import { Kafka, logLevel } from 'kafkajs';
import { SignedClient, SystemUnderTest } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('replies across gateway replicas and payments rebalances', () => {
  let system: SystemUnderTest;
  let viaFirstGateway: SignedClient;
  let viaSecondGateway: SignedClient;

  beforeAll(async () => {
    // Long enough to ride out a rebalance after a SIGKILL (6 s session timeout plus the rejoin).
    system = await SystemUnderTest.start({ env: { gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '40000', GATEWAY_INSTANCE_ID: 'first' } } });
    viaFirstGateway = await system.createClient('Replicated shop');
    await system.startService('gateway-2', { GATEWAY_INSTANCE_ID: 'second' });
    viaSecondGateway = new SignedClient(system.urlOf('gateway-2'), viaFirstGateway.credentials);
  });
  afterAll(async () => system?.stop());

  function burst(count: number, prefix: string) {
    return Array.from({ length: count }, (_, index) => {
      const orderId = newOrderId(prefix);
      const client = index % 2 === 0 ? viaFirstGateway : viaSecondGateway;
      return { orderId, response: client.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 1000 + index })) };
    });
  }

  async function expectCreatedOnce(requests: Array<{ orderId: string; response: Promise<{ status: number; body: any }> }>) {
    const responses = await Promise.all(requests.map((request) => request.response));
    expect(responses.map((response) => response.status)).toEqual(Array(requests.length).fill(201));
    responses.forEach((response, index) => expect(response.body.order_id).toBe(requests[index].orderId));
    const rows = await system.query<{ stream_id: string; events: string }>(
      'payments',
      `SELECT stream_id, count(*) AS events FROM event_store WHERE stream_id = ANY($1) GROUP BY stream_id`,
      [requests.map((request) => `payment-order:${viaFirstGateway.credentials.merchantId}:${request.orderId}`)],
    );
    expect(rows).toHaveLength(requests.length);
    expect(rows.every((row) => Number(row.events) === 1)).toBe(true);
  }

  /** Messages ever written to a topic of this run (one partition each): its high watermark. */
  async function messagesIn(topics: string[]): Promise<Record<string, number>> {
    const admin = new Kafka({ clientId: 'replies-count', brokers: String(process.env['KAFKA_BROKERS']).split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const counts: Record<string, number> = {};
      for (const topic of topics) {
        const offsets = await admin.fetchTopicOffsets(`${system.runId}.${topic}`);
        counts[topic] = offsets.reduce((sum, partition) => sum + Number(partition.high), 0);
      }
      return counts;
    } finally {
      await admin.disconnect();
    }
  }

  it('sends each replica only the replies to its own commands', async () => {
    const topics = ['gateway.replies.first', 'gateway.replies.second'];
    const before = await messagesIn(topics);
    const throughFirst = Array.from({ length: 7 }, () => newOrderId('own-first'));
    const throughSecond = Array.from({ length: 3 }, () => newOrderId('own-second'));
    const responses = await Promise.all([
      ...throughFirst.map((orderId) => viaFirstGateway.post('/v2/payments/incoming', incomingPayment(orderId))),
      ...throughSecond.map((orderId) => viaSecondGateway.post('/v2/payments/incoming', incomingPayment(orderId))),
    ]);
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(201));
    const after = await messagesIn(topics);
    expect({
      first: after['gateway.replies.first'] - before['gateway.replies.first'],
      second: after['gateway.replies.second'] - before['gateway.replies.second'],
    }).toEqual({ first: 7, second: 3 });
  });

  it('answers every create while payments replicas join the group', async () => {
    const requests = burst(30, 'scale-up');
    await system.startService('payments-2');
    await expectCreatedOnce([...requests, ...burst(30, 'after-join')]);
  });

  it('answers every create when a payments replica is killed mid-burst', async () => {
    const requests = burst(20, 'kill');
    await system.kill('payments-2');
    await expectCreatedOnce([...requests, ...burst(20, 'after-kill')]);
  });
});
