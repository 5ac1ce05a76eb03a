/**
 * Goal: a captured signed request that changes something cannot be sent again within the
 * timestamp window (docs/api/authentication.md): the replay of a secret rotation, a merchant setting or a webhook
 * tool gets 409 REQUEST_REPLAYED and no secret, while the merchant's own re-signed request still
 * works, and a create replayed answers as it always did (idempotent by order_id); rotations have
 * a rate limit of their own. Method: the
 * real gateway with its shared database; the identical request (same timestamp, path and body,
 * so the same signature) sent twice, and to a second gateway replica, as an attacker would.
 */
import { runLedgerAudit, SignedClient, SystemUnderTest } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('replayed signed requests', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    await system.startService('gateway-2');
    merchant = await system.createClient('Replay target shop');
  });
  afterAll(async () => system?.stop());

  const now = () => Math.floor(Date.now() / 1000);

  it('refuses a replayed webhook-secret rotation: the replayer gets no secret', async () => {
    const captured = { method: 'POST' as const, path: '/v2/merchant/webhook-secret/rotate', body: {}, timestampSeconds: now() };
    const original = await merchant.request(captured);
    expect(original.status).toBe(201);
    expect(original.body.webhook_secret).toEqual(expect.any(String));
    const replayed = await merchant.request(captured);
    expect([replayed.status, replayed.body.error.code, replayed.body.error.details]).toEqual([
      409,
      'REQUEST_REPLAYED',
      [{ field: 'x-signature', issue: 'already used' }],
    ]);
    expect(JSON.stringify(replayed.body)).not.toContain(original.body.webhook_secret);
    expect(replayed.body.webhook_secret).toBeUndefined();
  });

  it('refuses a replayed API-secret rotation, on another gateway replica too', async () => {
    const captured = { method: 'POST' as const, path: '/v2/merchant/api-secret/rotate', body: { overlap_hours: 1 }, timestampSeconds: now() };
    const original = await merchant.request(captured);
    expect(original.status).toBe(201);
    const onTheOtherReplica = await new SignedClient(system.urlOf('gateway-2'), merchant.credentials).request(captured);
    expect([onTheOtherReplica.status, onTheOtherReplica.body.error.code]).toEqual([409, 'REQUEST_REPLAYED']);
    expect(onTheOtherReplica.body.api_secret).toBeUndefined();
    // The merchant's own next request, signed anew, is not a replay.
    const rotatedClient = new SignedClient(system.gatewayUrl, { ...merchant.credentials, apiSecret: original.body.api_secret });
    expect((await rotatedClient.get('/v2/merchant')).status).toBe(200);
    merchant = rotatedClient;
  });

  it('refuses a replayed settings change, and accepts the same change signed again a second later', async () => {
    const body = { default_callback_url: 'https://shop.example/callbacks/replayed' };
    const captured = { method: 'PATCH' as const, path: '/v2/merchant', body, timestampSeconds: now() - 1 };
    expect((await merchant.request(captured)).status).toBe(200);
    expect((await merchant.request(captured)).body.error.code).toBe('REQUEST_REPLAYED');
    const resigned = await merchant.request({ ...captured, timestampSeconds: now() });
    expect([resigned.status, resigned.body.default_callback_url]).toEqual([200, body.default_callback_url]);
  });

  it('lets a refused request be sent again with the same signature: it changed nothing', async () => {
    const captured = {
      method: 'POST' as const,
      path: '/v2/webhooks/deliveries/msg_00000000000000000000000000000000/redeliver',
      body: {},
      timestampSeconds: now(),
    };
    const first = await merchant.request(captured);
    expect([first.status, first.body.error.code]).toEqual([404, 'NOT_FOUND']);
    // The claim is given back once the refusal is written; a client's retry comes later than this.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await merchant.request(captured);
    expect([again.status, again.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('answers a replayed create as before: the same order, created once', async () => {
    const captured = { method: 'POST' as const, path: '/v2/payments/incoming', body: incomingPayment(newOrderId('replay')), timestampSeconds: now() };
    const original = await merchant.request(captured);
    const replayed = await merchant.request(captured);
    expect([original.status, replayed.status]).toEqual([201, 201]);
    expect(replayed.text).toBe(original.text);
  });

  it('limits secret rotations on a bucket of their own: five at once, then 429 with Retry-After', async () => {
    // One webhook rotation was made above; each of these is signed anew (a different body).
    const answers = [];
    for (let hours = 1; hours <= 6; hours += 1) answers.push(await merchant.post('/v2/merchant/webhook-secret/rotate', { overlap_hours: hours }));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 429, 429]);
    expect(answers[4]?.body.error.code).toBe('RATE_LIMITED');
    expect(Number(answers[4]?.headers.get('retry-after'))).toBeGreaterThan(0);
    // The merchant's other requests are not held back by it.
    expect((await merchant.get('/v2/merchant')).status).toBe(200);
  });

  it('leaves books the ledger auditor agrees with', async () => {
    const { code, output } = await runLedgerAudit(system);
    expect(output).toContain('OK: every balance equals its postings');
    expect(code).toBe(0);
  });
});
