/**
 * Goal: a payout recipient's full account number and a payer-page token exist only where they
 * must. After real flows (a pay-in through the payer page, payouts taken, revealed, completed
 * and cancelled), neither appears anywhere in the three services' databases (event store,
 * outbox, inbox, projection, every table), in any message of any Kafka topic of the run, or in
 * the services' logs. The merchant sees the account masked; the agent who took the payout
 * sees the full number, and operators see that reveal.
 * Method: real gateway, payments, ledger and Kafka. Positive controls show the secrets were
 * really used (the token opened the page and reported the payment; the reveal returned the
 * full number) and that the scan reads the right data (it finds the orders' ids and the
 * masked number in the databases and on Kafka).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import {
  BackofficeClient,
  createOperator,
  eventually,
  registerAgent,
  SignedClient,
  SystemUnderTest,
  type RegisteredAgent,
  type ServiceName,
} from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

const ACCOUNT_NUMBER = '40817810099910004312';
const CANCELLED_ACCOUNT_NUMBER = '5536913700011234';
const PNG_RECEIPT = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('receipt-bytes')]);
const SERVICES: ServiceName[] = ['gateway', 'payments', 'ledger'];

/** Every row of every table of a service's database, as text. */
async function databaseText(system: SystemUnderTest, service: ServiceName): Promise<string> {
  const tables = await system.query<{ table_name: string }>(
    service,
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const dumps = await Promise.all(
    tables.map(async ({ table_name }) =>
      (await system.query<{ row: string }>(service, `SELECT t::text AS row FROM "${table_name}" t`)).map((row) => `${table_name}: ${row.row}`).join('\n'),
    ),
  );
  return dumps.join('\n');
}

/** Every message (key, headers and value) of every topic of this run's namespace, as text. */
async function kafkaText(namespace: string): Promise<{ text: string; messages: number }> {
  const kafka = new Kafka({ clientId: 'secrets-scan', brokers: (process.env['KAFKA_BROKERS'] ?? '').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(`${namespace}.`));
  const remaining = new Map<string, bigint>();
  for (const topic of topics) {
    for (const partition of await admin.fetchTopicOffsets(topic)) {
      if (BigInt(partition.high) > BigInt(partition.low)) remaining.set(`${topic}/${partition.partition}`, BigInt(partition.high));
    }
  }
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `${namespace}.secrets-scan` });
  const lines: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  const done = new Promise<void>((resolve) => {
    if (remaining.size === 0) resolve();
    void consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        const headers = Object.entries(message.headers ?? {})
          .map(([name, value]) => `${name}=${String(value)}`)
          .join(' ');
        lines.push(`${topic} ${message.key?.toString('utf8') ?? ''} ${headers} ${message.value?.toString('utf8') ?? ''}`);
        const id = `${topic}/${partition}`;
        if (BigInt(message.offset) + 1n >= (remaining.get(id) ?? 0n)) remaining.delete(id);
        if (remaining.size === 0) resolve();
      },
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`topics not read to the end: ${[...remaining.keys()].join(', ')}`)), 30_000)),
  );
  try {
    await Promise.race([done, timeout]);
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
  return { text: lines.join('\n'), messages: lines.length };
}

describe('secrets at rest and in transit', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let otherAgent: RegisteredAgent;
  let merchant: SignedClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start({ env: { gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '30000' } } });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    otherAgent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }], { display_name: 'Other agent' });
    merchant = await system.createClient('Secrets shop');
    // Fee-free methods, so the balances below are plain sums.
    const common = {
      country: 'RU',
      currency: 'RUB',
      fee_rate_basis_points: 0,
      fee_fixed_minor: '0',
      min_amount_minor: '100',
      max_amount_minor: '100000000',
      expiry_minutes: 30,
    };
    const methods = await operator.request('PUT', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/methods`, {
      entries: [
        { method: 'bank_card', direction: 'incoming', ...common },
        { method: 'bank_card', direction: 'outgoing', ...common },
      ],
    });
    expect(methods.status).toBe(200);
  });
  afterAll(async () => system?.stop());

  it('keeps full account numbers and payer-page tokens out of every database, topic and log', async () => {
    const merchantId = merchant.credentials.merchantId;

    // A pay-in through the payer page: the token opens the page, asks for details and reports the payment.
    const payInId = newOrderId('secret-payin');
    const payIn = await merchant.post('/v2/payments/incoming', incomingPayment(payInId, { amount: 5000 }));
    expect(payIn.status).toBe(201);
    const token = String(payIn.body.redirect_url).split('/pay/')[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect((await merchant.get(`/v2/payments/status/${payInId}`)).body.redirect_url).toBe(payIn.body.redirect_url);
    expect((await fetch(payIn.body.redirect_url)).status).toBe(200);
    // Viewing the page assigns nobody; the payer's "Show payment details" post does.
    expect((await fetch(`${payIn.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const reported = await fetch(`${payIn.body.redirect_url}/paid`, { method: 'POST', redirect: 'manual' });
    expect(reported.status).toBe(303);
    expect((await merchant.get(`/v2/payments/status/${payInId}`)).body.sub_status).toBe('payer_reported_paid');
    // The page assigned one of the two agents; only that one can confirm.
    const confirmed = await Promise.all(
      [agent, otherAgent].map((candidate) => candidate.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${payInId}/confirm`, {})),
    );
    expect(confirmed.map((response) => response.status).sort()).toEqual([200, 404]);

    // A payout: masked for the merchant and in lists, full only for the agent who took it.
    const payoutId = newOrderId('secret-payout');
    const payout = await merchant.post('/v2/payments/outgoing', {
      ...incomingPayment(payoutId, { amount: 1000 }),
      method: 'bank_card',
      account_number: ACCOUNT_NUMBER,
    });
    expect([payout.status, payout.body.account_number]).toEqual([201, '•••• 4312']);
    expect((await merchant.get(`/v2/payments/status/${payoutId}`)).body.account_number).toBe('•••• 4312');
    const available = await agent.client.request('GET', '/backoffice/v1/agent/orders?scope=available');
    expect(available.body.data.find((order: { order_id: string }) => order.order_id === payoutId)?.account_number).toBe('•••• 4312');

    const base = `/backoffice/v1/agent/orders/${merchantId}/${payoutId}`;
    const beforeTaking = await agent.client.request('POST', `${base}/account-number`, {});
    expect([beforeTaking.status, beforeTaking.body.error.code]).toEqual([404, 'ORDER_NOT_FOUND']);
    expect((await agent.client.request('POST', `${base}/take`, {})).status).toBe(200);
    const revealed = await agent.client.request('POST', `${base}/account-number`, {});
    expect([revealed.status, revealed.body.account_number]).toEqual([200, ACCOUNT_NUMBER]);
    const byOtherAgent = await otherAgent.client.request('POST', `${base}/account-number`, {});
    expect([byOtherAgent.status, byOtherAgent.body.error.code]).toEqual([404, 'ORDER_NOT_FOUND']);
    expect((await agent.client.request('GET', base)).body.account_number).toBe('•••• 4312');

    const reveals = await operator.request('GET', `/backoffice/v1/account-number-reveals?merchant_id=${merchantId}&order_id=${encodeURIComponent(payoutId)}`);
    expect(reveals.status).toBe(200);
    expect(reveals.body.data).toEqual([
      { reveal_id: expect.any(String), agent_id: agent.agentId, merchant_id: merchantId, order_id: payoutId, revealed_at: revealed.body.revealed_at },
    ]);
    expect((await agent.client.request('GET', '/backoffice/v1/account-number-reveals')).status).toBe(403);

    const upload = await agent.client.request('POST', `${base}/receipts`, PNG_RECEIPT, { 'x-file-name': 'transfer.png' });
    expect((await agent.client.request('POST', `${base}/complete`, { receipt_id: upload.body.receipt_id })).body.status).toBe('SUCCEEDED');

    const cancelledId = newOrderId('secret-cancelled');
    expect(
      (
        await merchant.post('/v2/payments/outgoing', {
          ...incomingPayment(cancelledId, { amount: 100 }),
          method: 'bank_card',
          account_number: CANCELLED_ACCOUNT_NUMBER,
        })
      ).status,
    ).toBe(201);
    expect((await merchant.post(`/v2/payments/${cancelledId}/cancel`, {})).body).toMatchObject({ status: 'CANCELLED', account_number: '•••• 1234' });

    // The ledger has consumed everything: 5000 in, 1000 out, the cancelled hold of 100 returned.
    const settled = [{ currency: 'RUB', available: 4000, frozen: 0 }];
    await eventually(
      async () => (await merchant.get('/v2/merchant/balances')).body.settlement,
      (settlement) => JSON.stringify(settlement) === JSON.stringify(settled),
      'the RUB balance settled',
    );

    const secrets = [ACCOUNT_NUMBER, CANCELLED_ACCOUNT_NUMBER, token];
    for (const service of SERVICES) {
      const text = await databaseText(system, service);
      for (const secret of secrets) expect({ service, found: text.includes(secret), secret }).toEqual({ service, found: false, secret });
      if (service === 'payments') {
        // Positive control: the scan sees the orders, their events and the masked numbers.
        expect(text).toContain(`event_store: `);
        expect(text).toContain(payoutId);
        expect(text).toContain(payInId);
        expect(text).toMatch(/payout_recipient_accounts: .*4312/);
      }
    }
    const kafka = await kafkaText(system.runId);
    expect(kafka.messages).toBeGreaterThan(10);
    expect(kafka.text).toContain(payoutId);
    expect(kafka.text).toContain('•••• 4312');
    for (const secret of secrets) expect({ found: kafka.text.includes(secret), secret }).toEqual({ found: false, secret });

    for (const instance of SERVICES) {
      const log = readFileSync(join(__dirname, '../../../.local/test-logs', `${system.runId}-${instance}.log`), 'utf8');
      for (const secret of secrets) expect({ instance, found: log.includes(secret), secret }).toEqual({ instance, found: false, secret });
    }
  });
});
