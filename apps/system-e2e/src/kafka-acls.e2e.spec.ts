/**
 * Goal: the Kafka boundary of docs/operations/kafka-security.md, with the secured configuration compose and Kubernetes run.
 * A broker of its own with SASL_SSL (SCRAM-SHA-512) and ACLs; the ops image's init makes the
 * topics and each service principal's ACLs (apps/ops/src/kafka-access.ts); the whole system runs
 * on it, each service as its own principal. Then the attacks: a forged `RequestWithdrawal` on
 * the commands topic from another service's principal, a produce to every command topic from
 * every principal but the gateway's, a client with no credentials and one with a wrong password.
 * Each is refused by the broker, and the refusal leaves no trace in the money. A dead-letter
 * replay runs as its topic's replay principal, which writes that topic and no other: the dlq
 * command replays a letter with it, refuses to run as anyone else, and the principal's produce
 * to any other topic is refused by the broker.
 */
import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import { PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { WITHDRAWAL_COMMAND_SCHEMA_VERSION, WITHDRAWAL_COMMAND_TYPES, WITHDRAWALS_TOPICS, type RequestWithdrawalData } from '@mp/contracts-withdrawals';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { builtEntryPoint, createOperator, registerAgent, SecuredKafka, SignedClient, SystemUnderTest, workspaceRoot } from '@mp/shared-testing';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { eventually } from '@mp/shared-testing';
import { disputesKnow } from './disputable-orders';
import { incomingPayment, newOrderId } from './fixtures';

const COMMAND_TOPICS = [PAYMENTS_TOPICS.commands, WITHDRAWALS_TOPICS.commands, DISPUTES_TOPICS.commands];
const NOT_THE_GATEWAY = ['payments', 'withdrawals', 'disputes', 'ledger', 'callbacks'];
const CATALOG_TOPICS = [...COMMAND_TOPICS, PAYMENTS_TOPICS.orderEvents, PAYMENTS_TOPICS.orderProgress, WITHDRAWALS_TOPICS.events, DISPUTES_TOPICS.events];
/** As replayPrincipalOf names them (libs/shared/messaging), written out so a renamed principal fails here. */
const replayPrincipal = (topic: string) => `dlq-replay-${topic.replaceAll('.', '-')}`;

describe('Kafka with authentication and ACLs (the secured configuration)', () => {
  let kafka: SecuredKafka;
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let provisioned = '';

  /** A kafkajs client of the secured broker, as `username` (or with no SASL at all). */
  const clientAs = (sasl: SASLOptions | null) =>
    new Kafka({
      clientId: `attacker-${sasl?.mechanism ?? 'anonymous'}`,
      brokers: [kafka.brokers],
      ssl: { ca: [readFileSync(kafka.security.caFile, 'utf8')] },
      ...(sasl ? { sasl } : {}),
      connectionTimeout: 3_000,
      retry: { retries: 0 },
      logLevel: logLevel.NOTHING,
    });
  const principal = (username: string, password = kafka.security.users[username]): SASLOptions => ({
    mechanism: 'scram-sha-512',
    username,
    password: password ?? '',
  });
  const topic = (name: string) => `${system.runId}.${name}`;

  /** Sends one message as `sasl` and returns the broker's refusal (its error type), or 'accepted'. */
  const produceAs = async (sasl: SASLOptions | null, topicName: string, value: string): Promise<string> => {
    const producer = clientAs(sasl).producer({ allowAutoTopicCreation: false });
    try {
      await producer.connect();
      await producer.send({ topic: topicName, messages: [{ key: 'forged', value }] });
      return 'accepted';
    } catch (error) {
      return refusalOf(error);
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
  };

  beforeAll(async () => {
    kafka = await SecuredKafka.start({ extraUsers: CATALOG_TOPICS.map(replayPrincipal) });
    system = await SystemUnderTest.start({
      env: kafka.systemEnv(),
      beforeServices: async (started) => {
        provisioned = await kafka.provision(started.runId);
      },
    });
    merchant = new SignedClient(system.gatewayUrl, await system.createMerchant('ACL shop'));
  });

  afterAll(async () => {
    await system?.stop();
    await kafka?.stop();
  });

  it('runs the whole system with one principal per service: init made the topics and the ACLs, a pay-in goes through', async () => {
    expect(provisioned).toMatch(/kafka-access: 13 principals: \d+ ACLs created, 0 deleted/);
    const orderId = newOrderId('acl');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
    expect(created.status).toBe(201);
    const read = await merchant.get(`/v2/payments/status/${orderId}`);
    expect([read.status, read.body.order_id]).toEqual([200, orderId]);
  });

  it('takes a declined pay-in through an accepted dispute: gateway, payments, disputes and ledger each write only their own topics', async () => {
    const operator = await createOperator(system, 'ACL operator');
    const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    const merchantId = merchant.credentials.merchantId;
    const orderId = newOrderId('acl-dispute');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 1000 }));
    expect(created.status).toBe(201);
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    await disputesKnow(system, merchant, orderId, true);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${orderId}/decline`, { reason: 'no money arrived' })).status).toBe(
      200,
    );
    const statusOf = async () => (await merchant.get(`/v2/payments/status/${orderId}`)).body as { status: string; amount: number };
    await eventually(statusOf, (order) => order.status === 'FAILED', `${orderId} FAILED`, 20_000);

    const opened = await merchant.post('/v2/disputes', { order_id: orderId, amount: 900, comment: 'The payer sent 900.00' });
    expect(opened.status).toBe(201);
    const reviewed = await agent.client.request('POST', `/backoffice/v1/agent/disputes/${merchantId}/${opened.body.dispute_id}/review`, {
      decision: 'ACCEPTED',
    });
    expect(reviewed.status).toBe(200);
    // Payments settles the order and tells disputes on its own topic (PaymentOrderDisputeOutcomeApplied).
    expect(await eventually(statusOf, (order) => order.status === 'SUCCEEDED', `${orderId} SUCCEEDED`, 20_000)).toMatchObject({
      status: 'SUCCEEDED',
      amount: 900,
    });
    const dispute = await eventually(
      async () => (await merchant.get(`/v2/disputes/${opened.body.dispute_id}`)).body as { status: string },
      (body) => body.status === 'ACCEPTED',
      'the dispute ACCEPTED',
      20_000,
    );
    expect(dispute.status).toBe('ACCEPTED');
  });

  it('provisions idempotently: a second init changes no ACL', async () => {
    expect(await kafka.provision(system.runId)).toMatch(/kafka-access: 13 principals: 0 ACLs created, 0 deleted/);
  });

  it('refuses a forged RequestWithdrawal on the commands topic from another service’s principal, and no withdrawal exists', async () => {
    const orderId = newOrderId('forged');
    const data: RequestWithdrawalData = {
      merchantId: merchant.credentials.merchantId,
      orderId,
      amountMinor: '100000000',
      currency: 'USDT-TRC20',
      address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
    };
    // Written by hand, as an attacker would: the envelope's fields (libs/shared/messaging/src/envelope.ts), claiming to be the gateway.
    const forged = {
      id: randomUUID(),
      type: WITHDRAWAL_COMMAND_TYPES.requestWithdrawal,
      schemaVersion: WITHDRAWAL_COMMAND_SCHEMA_VERSION,
      source: 'gateway',
      subject: `${data.merchantId}/${orderId}`,
      time: new Date().toISOString(),
      correlationId: orderId,
      causationId: null,
      data,
    };
    expect(await produceAs(principal('payments'), topic(WITHDRAWALS_TOPICS.commands), JSON.stringify(forged))).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect((await merchant.get(`/v2/merchant/withdrawals/${orderId}`)).status).toBe(404);
  });

  it('lets no principal but the gateway’s write a command topic', async () => {
    const refusals: Record<string, string> = {};
    for (const username of NOT_THE_GATEWAY) {
      for (const name of COMMAND_TOPICS) refusals[`${username} → ${name}`] = await produceAs(principal(username), topic(name), '{}');
    }
    expect(refusals).toEqual(Object.fromEntries(Object.keys(refusals).map((attempt) => [attempt, 'TOPIC_AUTHORIZATION_FAILED'])));
  });

  it('lets each replay principal write its own topic only: no other topic of the catalog, no dead-letter topic', async () => {
    const refusals: Record<string, string> = {};
    for (const own of CATALOG_TOPICS) {
      for (const other of CATALOG_TOPICS.filter((name) => name !== own))
        refusals[`${replayPrincipal(own)} → ${other}`] = await produceAs(principal(replayPrincipal(own)), topic(other), '{}');
      refusals[`${replayPrincipal(own)} → ${own}.dlq`] = await produceAs(principal(replayPrincipal(own)), topic(`${own}.dlq`), '{}');
    }
    // 7 replay principals, each refused the 6 other topics and its own dead letters.
    expect(Object.keys(refusals)).toHaveLength(49);
    expect(refusals).toEqual(Object.fromEntries(Object.keys(refusals).map((attempt) => [attempt, 'TOPIC_AUTHORIZATION_FAILED'])));
  });

  it('replays dead letters as the topic’s replay principal, and refuses to replay as any other principal', async () => {
    const replayed = WITHDRAWALS_TOPICS.commands;
    // Two letters, as the admin: one the consumer error policy could have written (its source is this
    // topic, named as on the broker), one planted (its source header names another topic), which the replay refuses.
    const admin = clientAs(principal(kafka.security.adminUser, kafka.security.adminPassword)).producer({ allowAutoTopicCreation: false });
    await admin.connect();
    await admin.send({
      topic: topic(`${replayed}.dlq`),
      messages: [
        { key: 'letter', value: '{}', headers: { 'dlq-source-topic': topic(replayed) } },
        { key: 'planted', value: '{}', headers: { 'dlq-source-topic': topic(PAYMENTS_TOPICS.commands) } },
      ],
    });
    await admin.disconnect();

    const dlq = async (environment: Record<string, string>) => {
      const env = { PATH: process.env['PATH'] ?? '', ...environment, KAFKA_NAMESPACE: system.runId };
      try {
        const { stdout } = await promisify(execFile)(process.execPath, [builtEntryPoint('apps/ops/src/dead-letters.ts'), 'replay', replayed, '--json'], {
          cwd: workspaceRoot,
          env,
        });
        return { code: 0, stdout, stderr: '' };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    // As a service principal (which writes other topics) with no replay password: refused before it connects.
    const asPayments = await dlq(kafka.serviceEnv('payments'));
    expect([asPayments.code, asPayments.stderr]).toEqual([2, expect.stringContaining('DLQ_REPLAY_WITHDRAWALS_COMMANDS_KAFKA_PASSWORD is not set')]);

    // The admin's settings and the replay principal's password: the replay runs as the replay principal.
    const replay = await dlq({
      ...kafka.serviceEnv(kafka.security.adminUser, kafka.security.adminPassword),
      DLQ_REPLAY_WITHDRAWALS_COMMANDS_KAFKA_PASSWORD: kafka.security.users[replayPrincipal(replayed)] ?? '',
    });
    expect(replay.code).toBe(1);
    expect(JSON.parse(replay.stdout)).toEqual({
      replayed: 1,
      refused: [expect.objectContaining({ reason: expect.stringContaining(PAYMENTS_TOPICS.commands) })],
    });
    const wrongPassword = await dlq({ ...kafka.serviceEnv(replayPrincipal(replayed), 'not-the-password') });
    expect(wrongPassword.code).toBe(2);
  });

  it('refuses a client without credentials and one with a wrong password', async () => {
    expect(await produceAs(null, topic(PAYMENTS_TOPICS.commands), '{}')).toMatch(
      /^(CONNECTION_CLOSED|SASL_REQUIRED|KafkaJSConnectionClosedError|KafkaJSConnectionError|KafkaJSRequestTimeoutError|ILLEGAL_SASL_STATE|KafkaJSProtocolError)$/,
    );
    expect(await produceAs(principal('gateway', 'not-the-password'), topic(PAYMENTS_TOPICS.commands), '{}')).toBe('SASL_AUTHENTICATION_FAILED');
  });
});

/** The broker's error type behind kafkajs's wrappers (retries give up with the original as the cause). */
function refusalOf(error: unknown): string {
  let current = error as { type?: string; name?: string; cause?: unknown; originalError?: unknown; errors?: unknown[] } | undefined;
  for (let depth = 0; current && depth < 5; depth += 1) {
    if (current.type && current.type !== 'UNKNOWN') return current.type;
    if (/SASL.*[Aa]uthentication failed/.test(String((current as Error).message))) return 'SASL_AUTHENTICATION_FAILED';
    const next = current.cause ?? current.originalError ?? current.errors?.[0];
    if (!next) return current.name ?? String(current);
    current = next as typeof current;
  }
  return String(error);
}
