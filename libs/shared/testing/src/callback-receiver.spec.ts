import { request } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { CallbackReceiver } from './callback-receiver';

const SECRET = `whsec_${Buffer.from('a test secret of enough length!!').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('another secret of enough length!').toString('base64')}`;

/** Posts `body` signed with `secret` (or unsigned); resolves with the status, or with 'aborted' when it gave up after `abortAfterMs`. */
function post(url: string, body: string, secret?: string, abortAfterMs?: number): Promise<number | 'aborted'> {
  const id = `msg_${Date.now()}`;
  const at = new Date();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  };
  if (secret) headers['webhook-signature'] = new Webhook(secret).sign(id, at, body);
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sent.on('error', (error) => (sent.destroyed && abortAfterMs !== undefined ? resolve('aborted') : reject(error)));
    if (abortAfterMs !== undefined) setTimeout(() => sent.destroy(), abortAfterMs);
    sent.end(body);
  });
}

describe('CallbackReceiver', () => {
  const started: CallbackReceiver[] = [];
  const start = async (options?: Parameters<typeof CallbackReceiver.start>[0]) => {
    const receiver = await CallbackReceiver.start(options);
    started.push(receiver);
    return receiver;
  };
  afterEach(async () => {
    await Promise.all(started.splice(0).map((receiver) => receiver.stop()));
  });

  it('records each request and answers its status (200 unless changed)', async () => {
    const receiver = await start();
    const body = JSON.stringify({ id: 'msg_1', type: 'payment.succeeded', created_at: 'now', data: { order_id: 'ord-1', version: 1 } });
    expect(await post(receiver.url(), body)).toBe(200);
    receiver.status = 410;
    expect(await post(receiver.url('/elsewhere?x=1'), '{}')).toBe(410);
    expect(receiver.received.map(({ method, url, verifiedWith }) => ({ method, url, verifiedWith }))).toEqual([
      { method: 'POST', url: '/callbacks', verifiedWith: [] },
      { method: 'POST', url: '/elsewhere?x=1', verifiedWith: [] },
    ]);
    expect(receiver.bodies()[0]?.data.order_id).toBe('ord-1');
    expect(receiver.connections).toBeGreaterThanOrEqual(1);
  });

  it('with secrets, names those that verify a callback and answers 400 when none does; the list may grow', async () => {
    const receiver = await start({ secrets: [SECRET] });
    expect(await post(receiver.url(), '{"n":1}', SECRET)).toBe(200);
    expect(await post(receiver.url(), '{"n":2}', OTHER)).toBe(400);
    expect(await post(receiver.url(), '{"n":3}')).toBe(400);
    receiver.secrets.push(OTHER);
    expect(await post(receiver.url(), '{"n":4}', OTHER)).toBe(200);
    expect(receiver.received.map((callback) => callback.verifiedWith)).toEqual([[SECRET], [], [], [OTHER]]);
  });

  it('answers as told, by request number, late when asked, and says whether the sender was still there', async () => {
    const outcomes: boolean[] = [];
    const receiver = await start({
      keepReceived: false,
      answer: (requestNumber) =>
        requestNumber === 1
          ? { status: 200, delayMs: 300, sent: (delivered) => outcomes.push(delivered) }
          : { status: 503, body: 'busy', sent: (delivered) => outcomes.push(delivered) },
    });
    expect(await post(receiver.url(), '{}', undefined, 50)).toBe('aborted');
    expect(await post(receiver.url(), '{}')).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(outcomes).toEqual([true, false]);
    expect(receiver.received).toEqual([]);
  });
});
