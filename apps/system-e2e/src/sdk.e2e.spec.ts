/**
 * Goal: the merchant SDK (libs/sdk) and its `merchant` CLI work against the real system, for
 * every merchant endpoint, and the integration guide's examples (libs/sdk/examples, included
 * verbatim in docs/api/integration-guide.md) do what the guide says. Method: one system start;
 * the examples are imported and called; the CLI runs from its build (`--curl` output executed
 * by the real curl binary, `listen` receiving a real callback from the dispatcher).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMerchantApiError, MerchantApiError, type CallbackEvent, type MerchantClient } from '@mp/merchant-sdk';
import {
  callbackServer,
  cancelUnpaid,
  clientFromEnvironment,
  createPayIn,
  currentStatus,
  disputePayIn,
  downloadReceipts,
  openDisputes,
  payInMethodFor,
  pendingWithdrawals,
  sendPayout,
  succeededPayInsSince,
  withdrawUsdt,
} from '@mp/merchant-sdk-examples';
import {
  BackofficeClient,
  builtEntryPoint,
  createOperator,
  freePort,
  registerAgent,
  SignedClient,
  SystemUnderTest,
  TEST_MERCHANT_DEFAULT_CALLBACK_URL,
  type RegisteredAgent,
} from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { disputesKnow } from './disputable-orders';
import { newOrderId } from './fixtures';
import { CONVERSION_FEE_BASIS_POINTS, ERC20_ADDRESS, fundWith1000Usdt } from './usdt-funding';

const PNG_RECEIPT = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('sdk-receipt-bytes')]);
const CLI = builtEntryPoint('libs/sdk/src/cli.ts');

describe('merchant SDK and CLI against the system', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  /** The merchant's credentials as the operator handed them out, webhook secret included. */
  let credentials: { merchantId: string; apiSecret: string; webhookSecret: string };
  let client: MerchantClient;
  let signed: SignedClient;
  const stopAfterwards: Array<() => unknown> = [];
  const workDir = mkdtempSync(join(tmpdir(), 'sdk-e2e-'));

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: {
        // Callback receivers here are plain-HTTP servers on 127.0.0.1, as in callbacks.e2e.spec.ts.
        gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true', GATEWAY_COMMAND_TIMEOUT_MS: '30000' },
        ledger: { LEDGER_CONVERSION_FEE_BASIS_POINTS: String(CONVERSION_FEE_BASIS_POINTS) },
        // Sent withdrawals stay PENDING for the whole run, so the pending list has them.
        withdrawals: { WITHDRAWALS_SIMULATOR_DELAY_MS: '600000' },
      },
    });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    const created = await operator.request('POST', '/backoffice/v1/merchants', { name: 'SDK shop', default_callback_url: TEST_MERCHANT_DEFAULT_CALLBACK_URL });
    expect(created.status).toBe(201);
    credentials = { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret, webhookSecret: created.body.webhook_secret };
    client = clientFromEnvironment({ MERCHANT_API_URL: system.gatewayUrl, MERCHANT_ID: credentials.merchantId, MERCHANT_SECRET: credentials.apiSecret });
    signed = new SignedClient(system.gatewayUrl, credentials);
  });

  afterAll(async () => {
    for (const stop of stopAfterwards) await stop();
    await system?.stop();
  });

  /** The payer presses "Show payment details" (assigns the agent); the agent confirms. */
  const payerPaysAndAgentConfirms = async (redirectUrl: string, orderId: string) => {
    expect((await fetch(`${redirectUrl}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect(
      (await agent.client.request('POST', `/backoffice/v1/agent/orders/${credentials.merchantId}/${encodeURIComponent(orderId)}/confirm`, {})).status,
    ).toBe(200);
  };

  /** Runs the built CLI with the merchant's credentials in its environment. */
  const cli = (args: string[]) =>
    execFileSync(process.execPath, [CLI, ...args], {
      encoding: 'utf8',
      env: { ...process.env, MERCHANT_ID: credentials.merchantId, MERCHANT_SECRET: credentials.apiSecret, MERCHANT_API_URL: system.gatewayUrl },
    });

  it('methods, a pay-in, its callback verified by the example endpoint, its status, and the succeeded list page by page', async () => {
    expect(await payInMethodFor(client, 'RUB')).toMatchObject({ method: 'bank_card', country: 'RU', currency: 'RUB' });

    const events: CallbackEvent[] = [];
    const server = callbackServer([credentials.webhookSecret], (event) => events.push(event));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stopAfterwards.push(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    });
    const port = (server.address() as { port: number }).port;

    const paid: string[] = [];
    for (const amount of [1500.5, 700, 300]) {
      const orderId = newOrderId('sdk-in');
      const redirectUrl = await createPayIn(client, orderId, amount, `http://127.0.0.1:${port}/callbacks`);
      expect(redirectUrl).toContain('/pay/');
      await payerPaysAndAgentConfirms(redirectUrl, orderId);
      paid.push(orderId);
    }
    const succeeded = await eventually(
      () => events.flatMap((event) => (event.type === 'payment.succeeded' ? [event.data.order_id] : [])),
      (ids) => ids.length === 3,
      'three verified payment.succeeded callbacks',
    );
    expect([...succeeded].sort()).toEqual([...paid].sort());
    expect(await currentStatus(client, paid[0])).toBe('SUCCEEDED');

    const today = new Date().toISOString().slice(0, 10);
    expect((await succeededPayInsSince(client, today)).map((order) => order.order_id)).toEqual([...paid].reverse());
    // One order a page: the iterator follows next_cursor through all three, none twice.
    const onePerPage: string[] = [];
    for await (const order of client.payments.listIncoming({ limit: 1, status: 'SUCCEEDED' })) onePerPage.push(order.order_id);
    expect(onePerPage).toEqual([...paid].reverse());
  });

  it('merchant listen verifies real callbacks (a cancelled pay-in, a test callback and its redelivery), the webhook tools log them, and a forged one is invalid', async () => {
    const port = await freePort();
    const listener: ChildProcess = spawn(process.execPath, [CLI, 'listen', '--port', String(port), '--secret', credentials.webhookSecret], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stopAfterwards.push(() => listener.kill());
    let output = '';
    listener.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await eventually(
      () => output,
      (text) => text.includes('listening on'),
      'merchant listen to start',
      10_000,
    );

    const orderId = newOrderId('sdk/listen:');
    await createPayIn(client, orderId, 500, `http://127.0.0.1:${port}/callbacks`);
    expect(await cancelUnpaid(client, orderId)).toMatchObject({ order_id: orderId, status: 'CANCELLED' });
    const verified = await eventually(
      () => output.split('\n').find((line) => line.startsWith('verified ') && line.includes(' payment.cancelled ')),
      Boolean,
      'the listener to verify the callback',
    );
    expect(JSON.parse(String(verified).split(' payment.cancelled ')[1])).toMatchObject({ order_id: orderId, status: 'CANCELLED' });

    // The webhook tools: a test callback to the listener, the delivery log, one delivery, a redelivery.
    const test = await client.webhooks.sendTest({ url: `http://127.0.0.1:${port}/callbacks` });
    expect(test).toMatchObject({ event_type: 'webhook.test', order_id: null, url: `http://127.0.0.1:${port}/callbacks` });
    await eventually(
      () => output,
      (text) => text.includes(`verified ${test.delivery_id} webhook.test`),
      'the listener to verify the test callback',
    );
    const delivered = await eventually(
      () => client.webhooks.delivery(test.delivery_id),
      (delivery) => delivery.status === 'succeeded',
      'the test callback to be logged as delivered',
    );
    expect(delivered.attempts).toEqual([expect.objectContaining({ attempt_number: 1, response_code: 204, outcome: 'succeeded' })]);
    const logged: string[] = [];
    for await (const delivery of client.webhooks.deliveries({ limit: 1 })) logged.push(`${delivery.event_type} ${delivery.order_id}`);
    expect(logged).toEqual(expect.arrayContaining(['webhook.test null', `payment.cancelled ${orderId}`]));
    expect(await client.webhooks.redeliver(test.delivery_id)).toMatchObject({ delivery_id: test.delivery_id });
    await eventually(
      () => output.split(`verified ${test.delivery_id} webhook.test`).length - 1,
      (count) => count === 2,
      'the redelivered test callback',
    );
    expect(await client.webhooks.disabledEndpoints()).toEqual({ data: [] });
    const notDisabled = await client.webhooks.enableEndpoint(`http://127.0.0.1:${port}/callbacks`).catch((error: unknown) => error);
    expect(isMerchantApiError(notDisabled, 'NOT_FOUND')).toBe(true);

    const forged = await fetch(`http://127.0.0.1:${port}/callbacks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    await eventually(
      () => output,
      (text) => text.includes('invalid msg_forged'),
      'the listener to refuse the forged callback',
    );
  });

  it('throws errors typed by code: DUPLICATE_ORDER for a reused order_id, ORDER_NOT_FOUND for an unknown one', async () => {
    const orderId = newOrderId('sdk-dup');
    await createPayIn(client, orderId, 1000, 'https://shop.example/callbacks');
    const duplicate = await client.payments
      .createIncoming({ order_id: orderId, amount: 1001, currency: 'RUB', country: 'RU', callback_url: 'https://shop.example/callbacks' })
      .catch((error: unknown) => error);
    expect(isMerchantApiError(duplicate, 'DUPLICATE_ORDER')).toBe(true);
    expect(duplicate).toMatchObject({ status: 409, requestId: expect.stringMatching(/^req_/), details: [expect.objectContaining({ field: 'order_id' })] });
    await expect(createPayIn(client, orderId, 1001, 'https://shop.example/callbacks')).rejects.toThrow(/already exists differently/);
    const missing = await client.payments.status('sdk/never:1').catch((error: unknown) => error);
    expect([missing instanceof MerchantApiError, (missing as MerchantApiError).code]).toEqual([true, 'ORDER_NOT_FOUND']);
  });

  it('merchant call --curl prints a command that the real curl runs successfully, for a GET with / and : in the id and a POST body', async () => {
    const orderId = newOrderId('sdk/curl:');
    await createPayIn(client, orderId, 1000, 'https://shop.example/callbacks');
    const getCommand = cli(['call', 'GET', `/v2/payments/status/${encodeURIComponent(orderId)}`, '--curl']);
    expect(JSON.parse(execFileSync('bash', ['-c', getCommand], { encoding: 'utf8' }))).toMatchObject({ order_id: orderId, status: 'PENDING' });
    const listCommand = cli(['call', 'POST', '/v2/payments/incoming/list', '--body', '{ "limit": 1,  "status": "PENDING" }', '--curl']);
    expect(JSON.parse(execFileSync('bash', ['-c', listCommand], { encoding: 'utf8' })).data.map((order: { order_id: string }) => order.order_id)).toEqual([
      orderId,
    ]);
    // And without --curl it sends the request itself.
    expect(cli(['call', 'GET', '/v2/merchant'])).toContain(`"merchant_id": "${credentials.merchantId}"`);
  });

  it('payouts with a receipt, the outgoing list, the merchant profile and settings, balances', async () => {
    const common = {
      country: 'RU',
      currency: 'RUB',
      fee_rate_basis_points: 0,
      fee_fixed_minor: '0',
      min_amount_minor: '100',
      max_amount_minor: '100000000',
      expiry_minutes: 30,
    };
    const methods = {
      entries: [
        { method: 'bank_card', direction: 'incoming', ...common },
        { method: 'bank_card', direction: 'outgoing', ...common },
      ],
    };
    expect((await operator.request('PUT', `/backoffice/v1/merchants/${credentials.merchantId}/methods`, methods)).status).toBe(200);
    const fundingId = newOrderId('sdk-funding');
    await payerPaysAndAgentConfirms(await createPayIn(client, fundingId, 5000, 'https://shop.example/callbacks'), fundingId);
    await eventually(
      () => client.merchant.balances(),
      (balances) => (balances.settlement.find((entry) => entry.currency === 'RUB')?.available ?? 0) >= 5000,
      'the funding credit',
    );

    const orderId = newOrderId('sdk/payout:');
    expect(await sendPayout(client, orderId, 1000, '4111 1111 1111 1111', 'https://shop.example/callbacks')).toMatchObject({
      order_id: orderId,
      status: 'PENDING',
      account_number: '•••• 1111',
    });
    const base = `/backoffice/v1/agent/orders/${credentials.merchantId}/${encodeURIComponent(orderId)}`;
    expect((await agent.client.request('POST', `${base}/take`, {})).status).toBe(200);
    const upload = await agent.client.request('POST', `${base}/receipts`, PNG_RECEIPT, { 'x-file-name': 'transfer.png' });
    expect(upload.status).toBe(201);
    expect((await agent.client.request('POST', `${base}/complete`, { receipt_id: upload.body.receipt_id })).status).toBe(200);
    expect(await downloadReceipts(client, orderId)).toEqual([{ fileName: 'transfer.png', contentType: 'image/png', content: PNG_RECEIPT }]);

    const outgoing: string[] = [];
    for await (const order of client.payments.listOutgoing({})) outgoing.push(order.order_id);
    expect(outgoing).toEqual([orderId]);

    expect(await client.merchant.get()).toMatchObject({ merchant_id: credentials.merchantId, status: 'active' });
    expect(await client.merchant.update({ default_callback_url: 'https://shop.example/sdk-callbacks' })).toMatchObject({
      default_callback_url: 'https://shop.example/sdk-callbacks',
    });
    // The ledger posts the payout's hold when it takes the completion event, after the agent's answer.
    const balances = await eventually(
      () => client.merchant.balances(),
      (candidate) => candidate.settlement.find((entry) => entry.currency === 'RUB')?.frozen === 0,
      "the payout's hold posted",
    );
    expect(balances.settlement.find((entry) => entry.currency === 'RUB')).toMatchObject({ frozen: 0 });

    // The day's reconciliation (this merchant's whole history is today): the funding pay-in and
    // the payout are there, and the rows' available changes add up to the available balance.
    const csv = await client.merchant.reconciliation({ date: new Date().toISOString().slice(0, 10), currency: 'RUB' });
    const [header, ...rows] = csv
      .trimEnd()
      .split('\r\n')
      .map((line) => line.split(','));
    const column = (name: string) => header.indexOf(name);
    expect(column('reference_id')).toBeGreaterThanOrEqual(0);
    const referenced = rows.map((row) => row[column('reference_id')]);
    expect(referenced).toEqual(expect.arrayContaining([fundingId, orderId]));
    const availableChange = rows.reduce((sum, row) => sum + Number(row[column('available_change_minor')]), 0);
    expect(availableChange).toBe(Number(balances.settlement.find((entry) => entry.currency === 'RUB')?.available) * 100);
  });

  it('disputes: open one with a receipt, read it, and find it among the open ones', async () => {
    const orderId = newOrderId('sdk-dispute');
    const redirectUrl = await createPayIn(client, orderId, 1200, 'https://shop.example/callbacks');
    expect((await fetch(`${redirectUrl}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    await disputesKnow(system, signed, orderId, true);
    const receiptFile = join(workDir, 'transfer.png');
    writeFileSync(receiptFile, PNG_RECEIPT);

    const opened = await disputePayIn(client, orderId, 1000, receiptFile);
    expect(opened).toMatchObject({
      order_id: orderId,
      status: 'OPEN',
      amount: 1000,
      receipt: { file_name: 'transfer.png', content_type: 'image/png', size_bytes: PNG_RECEIPT.length },
    });
    expect(await client.disputes.get(opened.dispute_id)).toEqual(opened);
    expect((await openDisputes(client)).map((dispute) => dispute.dispute_id)).toEqual([opened.dispute_id]);
  });

  it('withdrawals: create one, read it, and find it among the pending ones', async () => {
    // A merchant of its own: the USDT funding expects balances that start at zero.
    const other = await system.createClient('SDK withdrawing shop');
    await fundWith1000Usdt(operator, agent, other);
    const otherClient = clientFromEnvironment({
      MERCHANT_API_URL: system.gatewayUrl,
      MERCHANT_ID: other.credentials.merchantId,
      MERCHANT_SECRET: other.credentials.apiSecret,
    });

    const orderId = newOrderId('sdk/wd:');
    const created = await withdrawUsdt(otherClient, orderId, 100, ERC20_ADDRESS);
    expect(created).toMatchObject({ order_id: orderId, status: 'PENDING', currency: 'USDT-ERC20', address: ERC20_ADDRESS });
    // The SDK retries creates as they are: the same order_id and body again is the same withdrawal.
    expect(await withdrawUsdt(otherClient, orderId, 100, ERC20_ADDRESS)).toMatchObject({ order_id: orderId, amount: 100, created_at: created.created_at });
    expect((await pendingWithdrawals(otherClient)).map((withdrawal) => [withdrawal.order_id, withdrawal.status])).toEqual([[orderId, 'PENDING']]);
  });
});
