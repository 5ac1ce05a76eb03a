/**
 * The chaos run's callback sink: its modes against callbacks signed as the dispatcher signs them
 * (the standardwebhooks package), and the 410 fault's heal. The 410 fault end to end against the
 * real dispatcher (it disables the endpoint and parks the callback; the heal turns it back on
 * through the merchant's signed /v2/webhooks API, which sends the parked callback) is the quick
 * chaos run's: it fails when the heal finds nothing disabled or a callback never arrives.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { eventually } from '@mp/shared-testing';
import { CallbackSink, callbackSinkFaults, type CallbackSinkFault, type SinkMerchant } from './callback-sink';

jest.setTimeout(30_000);

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
      webhookId: 'msg_1',
      merchantId: 'merchant-a',
      type: 'payment.succeeded',
      subjectId: 'order-msg_1',
      acknowledged: true,
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
    // Recorded when the sink's late answer finds the sender gone.
    await eventually(() => sink.deliveries.get('msg_impatient')?.attempts[0]?.abandoned, Boolean, 'the abandoned attempt recorded', 5_000);
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

describe('the gone fault', () => {
  let sink: CallbackSink;
  const disabled: string[] = [];
  const enabled: string[] = [];
  // The merchant's signed /v2/webhooks calls as the heal makes them; against the real dispatcher, the quick chaos run proves the whole path (docs/operations/chaos.md).
  const client = {
    webhooks: {
      disabledEndpoints: async () => ({ data: disabled.splice(0).map((url) => ({ url, disabled_at: new Date().toISOString(), reason: '410' })) }),
      enableEndpoint: async (url: string) => {
        enabled.push(url);
        return { url, resumed_deliveries: 2 };
      },
    },
  } as unknown as SinkMerchant['client'];

  beforeEach(async () => {
    sink = await CallbackSink.start();
    enabled.length = 0;
  });

  afterEach(() => sink.stop());

  it('turns the disabled endpoints of this sink back on, leaving other URLs alone', async () => {
    const url = sink.register({ merchantId: 'merchant-a', webhookSecrets: [secret], client });
    disabled.push(url, 'https://elsewhere.example/cb');
    const gone = faultNamed(callbackSinkFaults(sink, { holdMs: 0, settleMs: 10 }), 'callback-sink-gone');
    const lines: string[] = [];
    await gone.inject({ log: (line) => lines.push(line) });
    expect(sink.mode).toEqual({ kind: 'gone' });
    await gone.heal({ log: (line) => lines.push(line) });
    expect([sink.mode, enabled]).toEqual([{ kind: 'normal' }, [url]]);
    expect(lines).toContainEqual(expect.stringMatching(/re-enabled 1 endpoint, 2 parked callbacks resumed/));
  });

  it('fails its heal when its 410s disabled no endpoint: the fault did not happen', async () => {
    sink.register({ merchantId: 'merchant-a', webhookSecrets: [secret], client });
    const gone = faultNamed(callbackSinkFaults(sink, { holdMs: 0, settleMs: 10 }), 'callback-sink-gone');
    await gone.inject({ log: () => undefined });
    await expect(gone.heal({ log: () => undefined })).rejects.toThrow(/no endpoint was disabled/);
    expect(sink.mode).toEqual({ kind: 'normal' });
  });
});
