/**
 * The chaos run's callback sink: its modes against callbacks signed as the dispatcher signs them
 * (the standardwebhooks package), then the 410 fault end to end against the real system (the
 * dispatcher disables the endpoint and parks the callback; the heal turns it back on through
 * the merchant's signed /v2/webhooks API, which sends the parked callback).
 */
import { randomBytes } from 'node:crypto';
import { MerchantClient } from '@mp/merchant-sdk';
import { createOperator, SystemUnderTest } from '@mp/shared-testing';
import { Webhook } from 'standardwebhooks';
import { CallbackSink, callbackSinkFaults, type CallbackSinkFault } from './callback-sink';

jest.setTimeout(120_000);

const secret = `whsec_${randomBytes(24).toString('base64')}`;

/** A callback as the dispatcher sends it: body, webhook-id, webhook-timestamp and signature. */
function signedCallback(webhookId: string, data: Record<string, unknown>, signingSecret = secret): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ id: webhookId, type: 'payment.succeeded', created_at: new Date().toISOString(), data: { ...data, version: 3 } });
  const now = new Date();
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(signingSecret).sign(webhookId, now, body),
    },
  };
}

async function deliver(url: string, webhookId: string, options: { signingSecret?: string; timeoutMs?: number } = {}): Promise<number> {
  const { body, headers } = signedCallback(webhookId, { order_id: `order-${webhookId}` }, options.signingSecret);
  const response = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });
  return response.status;
}

const faultNamed = (faults: CallbackSinkFault[], kind: string): CallbackSinkFault => {
  const fault = faults.find((candidate) => candidate.kind === kind);
  if (!fault) throw new Error(`no ${kind} fault`);
  return fault;
};

describe('CallbackSink modes', () => {
  let sink: CallbackSink;
  let url: string;

  beforeEach(async () => {
    sink = await CallbackSink.start();
    url = sink.register({ merchantId: 'merchant-a', webhookSecrets: [secret] });
  });

  afterEach(() => sink.stop());

  it('verifies the signature, answers 200 and records each delivery by its webhook-id', async () => {
    expect(await deliver(url, 'msg_1')).toBe(200);
    expect(await deliver(url, 'msg_1')).toBe(200);
    expect(await deliver(url, 'msg_2', { signingSecret: `whsec_${randomBytes(24).toString('base64')}` })).toBe(400);
    expect(await deliver(`${url}-unknown`, 'msg_3')).toBe(404);
    expect(sink.deliveries.get('msg_1')).toEqual({
      webhookId: 'msg_1', merchantId: 'merchant-a', type: 'payment.succeeded', subjectId: 'order-msg_1', acknowledged: true,
      attempts: [expect.objectContaining({ status: 200, abandoned: false }), expect.objectContaining({ status: 200, abandoned: false })],
    });
    expect(sink.counts()).toEqual({ received: 4, unverified: 1, unroutable: 1, deliveries: 1, acknowledged: 1, repeated: 1 });
    expect(sink.acknowledgedIds()).toEqual(['msg_1']);
  });

  it('answers 500 while failing and 410 while gone, recording the delivery as not acknowledged', async () => {
    sink.setMode({ kind: 'failing' });
    expect(await deliver(url, 'msg_f')).toBe(500);
    sink.setMode({ kind: 'gone' });
    expect(await deliver(url, 'msg_g')).toBe(410);
    sink.setMode({ kind: 'normal' });
    expect(await deliver(url, 'msg_f')).toBe(200);
    expect([sink.deliveries.get('msg_f')?.attempts.map(({ status }) => status), sink.deliveries.get('msg_g')?.acknowledged]).toEqual([[500, 200], false]);
    expect(sink.acknowledgedIds()).toEqual(['msg_f']);
  });

  it('answers late while slow; a sender that gave up first is recorded as abandoned, not acknowledged', async () => {
    sink.setMode({ kind: 'slow', delayMs: 600 });
    const startedAt = performance.now();
    expect(await deliver(url, 'msg_patient')).toBe(200);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(600 - 5);
    await expect(deliver(url, 'msg_impatient', { timeoutMs: 150 })).rejects.toThrow(/aborted|timeout/i);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(sink.deliveries.get('msg_impatient')).toMatchObject({ acknowledged: false, attempts: [{ abandoned: true }] });
    expect(sink.acknowledgedIds()).toEqual(['msg_patient']);
  });

  it('offers a fault per mode, each healed back to normal', async () => {
    const faults = callbackSinkFaults(sink, { slowDelayMs: 4_000, holdMs: 8_000 });
    expect(faults.map(({ kind, name, holdMs }) => ({ kind, name, holdMs }))).toEqual([
      { kind: 'callback-sink-slow', name: 'callback sink slow (answers after 4 s) for 8 s', holdMs: 8_000 },
      { kind: 'callback-sink-failing', name: 'callback sink failing (500) for 8 s', holdMs: 8_000 },
      { kind: 'callback-sink-gone', name: 'callback sink gone (410) for 8 s, then re-enabled', holdMs: 8_000 },
    ]);
    const lines: string[] = [];
    for (const fault of faults.slice(0, 2)) {
      await fault.inject({ log: (line) => lines.push(line) });
      expect(sink.mode.kind).not.toBe('normal');
      await fault.heal({ log: (line) => lines.push(line) });
      expect(sink.mode).toEqual({ kind: 'normal' });
    }
  });
});

describe('the gone fault against the real dispatcher', () => {
  let system: SystemUnderTest;
  let sink: CallbackSink;

  beforeAll(async () => {
    [system, sink] = await Promise.all([SystemUnderTest.start({ env: { gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true' } } }), CallbackSink.start()]);
  });

  afterAll(async () => {
    await system?.stop();
    await sink?.stop();
  });

  it('sees the endpoint disabled by its 410, and the heal turns it back on, which sends the parked callback', async () => {
    const operator = await createOperator(system);
    const created = await operator.request('POST', '/backoffice/v1/merchants', { name: 'Sink shop' });
    const merchantId = created.body.merchant_id as string;
    const client = new MerchantClient({ baseUrl: system.gatewayUrl, merchantId, apiSecret: created.body.api_secret as string });
    const url = sink.register({ merchantId, webhookSecrets: [created.body.webhook_secret as string], client });
    const gone = faultNamed(callbackSinkFaults(sink, { holdMs: 0, settleMs: 500 }), 'callback-sink-gone');
    const lines: string[] = [];
    const context = { log: (line: string) => lines.push(line) };

    await gone.inject(context);
    const test = await client.webhooks.sendTest({ url });
    const until = async (done: () => Promise<boolean> | boolean, what: string) => {
      const deadline = Date.now() + 30_000;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error(`${what} not within 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    await until(async () => (await client.webhooks.disabledEndpoints()).data.some((endpoint) => endpoint.url === url), 'the endpoint disabled');
    expect(sink.deliveries.get(test.delivery_id)).toMatchObject({ merchantId, acknowledged: false, attempts: [{ status: 410 }] });

    await gone.heal(context);
    await until(() => sink.deliveries.get(test.delivery_id)?.acknowledged === true, 'the parked callback');
    expect((await client.webhooks.disabledEndpoints()).data).toEqual([]);
    expect(lines).toContainEqual(expect.stringMatching(/re-enabled 1 endpoint, 1 parked callback resumed/));
  });
});
