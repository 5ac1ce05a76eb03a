/**
 * Goal: every authentication rule of docs/api/authentication.md, each with a passing and a failing case,
 * against the real gateway, Kafka and payments service. Method: a test client that signs with
 * the merchant SDK's signer (held to docs/api/signing-test-vectors.json) and knobs that break one thing.
 */
import { createHash, createHmac } from 'node:crypto';
import { signatureOf } from '@mp/merchant-sdk/signing';
import { rawRequest, SignedClient, SystemUnderTest } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('request signatures', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let otherMerchant: SignedClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    merchant = await system.createClient('Signature shop');
    otherMerchant = await system.createClient('Other shop');
  });
  afterAll(async () => system?.stop());

  const nowSeconds = () => Math.floor(Date.now() / 1000);

  async function createOrder(orderId: string) {
    const response = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
    expect(response.status).toBe(201);
    return response;
  }

  function expectError(response: { status: number; body: any; headers: Headers }, status: number, code: string) {
    expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
    expect(response.body.request_id).toMatch(/^req_/);
    expect(response.headers.get('x-request-id')).toBe(response.body.request_id);
  }

  it('accepts a correctly signed create and rejects it with a wrong secret', async () => {
    await createOrder(newOrderId());
    const forged = new SignedClient(system.gatewayUrl, { merchantId: merchant.credentials.merchantId, apiSecret: otherMerchant.credentials.apiSecret });
    expectError(await forged.post('/v2/payments/incoming', incomingPayment(newOrderId())), 401, 'INVALID_SIGNATURE');
  });

  describe('the signed path', () => {
    it('signs an order id with a colon decoded even when it is sent as %3A', async () => {
      const orderId = newOrderId('colon:id');
      await createOrder(orderId);
      const wirePath = `/v2/payments/status/${orderId.replace(':', '%3A')}`;
      const decoded = await merchant.request({ method: 'GET', path: wirePath, signedPath: `/v2/payments/status/${orderId}` });
      expect(decoded.status).toBe(200);
      expect(decoded.body.order_id).toBe(orderId);
      expectError(await merchant.request({ method: 'GET', path: wirePath, signedPath: wirePath }), 401, 'INVALID_SIGNATURE');
    });

    it('keeps %2F encoded in the signed path', async () => {
      const orderId = newOrderId('slash/id');
      await createOrder(orderId);
      const wirePath = `/v2/payments/status/${orderId.replace('/', '%2F')}`;
      const encoded = await merchant.request({ method: 'GET', path: wirePath, signedPath: wirePath });
      expect(encoded.status).toBe(200);
      expect(encoded.body.order_id).toBe(orderId);
      expectError(await merchant.request({ method: 'GET', path: wirePath, signedPath: `/v2/payments/status/${orderId}` }), 401, 'INVALID_SIGNATURE');
    });

    it('does not sign the query string', async () => {
      const orderId = newOrderId();
      await createOrder(orderId);
      const response = await merchant.request({
        method: 'GET',
        path: `/v2/payments/status/${orderId}?expand=none`,
        signedPath: `/v2/payments/status/${orderId}`,
      });
      expect(response.status).toBe(200);
    });

    it('tells on a mismatch what the server signed: the decoded path, the timestamp, the body length and SHA-256, never a signature', async () => {
      const orderId = newOrderId('colon:id');
      const wirePath = `/v2/payments/status/${orderId.replace(':', '%3A')}`;
      const timestampSeconds = nowSeconds();
      const response = await merchant.request({ method: 'GET', path: wirePath, signedPath: wirePath, timestampSeconds });
      expectError(response, 401, 'INVALID_SIGNATURE');
      expect(response.body.server_signed).toEqual({
        timestamp: String(timestampSeconds),
        path: `/v2/payments/status/${orderId}`,
        body_bytes: 0,
        body_sha256: createHash('sha256').update(Buffer.alloc(0)).digest('hex'),
        string_to_sign: expect.stringContaining(`"${timestampSeconds}./v2/payments/status/${orderId}." followed by the 0 raw body bytes`),
      });
      // The only 64-hex-digit value in the answer is the body's hash: no expected signature.
      expect(new Set(JSON.stringify(response.body).match(/[0-9a-f]{64}/g))).toEqual(new Set([response.body.server_signed.body_sha256]));
    });

    it('gives the SHA-256 of the body bytes it received on a mismatch', async () => {
      const body = JSON.stringify(incomingPayment(newOrderId()));
      const response = await merchant.request({ method: 'POST', path: '/v2/payments/incoming', body, signedBody: `${body} ` });
      expectError(response, 401, 'INVALID_SIGNATURE');
      expect(response.body.server_signed).toMatchObject({
        path: '/v2/payments/incoming',
        body_bytes: Buffer.byteLength(body),
        body_sha256: createHash('sha256').update(body).digest('hex'),
      });
    });

    it('adds nothing about the signed string for an unknown key or a stale timestamp', async () => {
      const stranger = new SignedClient(system.gatewayUrl, { merchantId: 'mch_000000000000000000000000', apiSecret: 'sk_guess' });
      const unknown = await stranger.get('/v2/payments/status/x');
      expectError(unknown, 401, 'INVALID_API_KEY');
      const stale = await merchant.request({ method: 'GET', path: '/v2/payments/status/x', timestampSeconds: nowSeconds() - 1000 });
      expectError(stale, 401, 'TIMESTAMP_OUT_OF_RANGE');
      expect([unknown.body.server_signed, stale.body.server_signed]).toEqual([undefined, undefined]);
    });

    it('answers malformed percent-encoding with a 4xx, never a 5xx', async () => {
      const response = await merchant.request({ method: 'GET', path: '/v2/payments/status/%E0%A4%A', signedPath: '/v2/payments/status/x' });
      expectError(response, 400, 'VALIDATION_ERROR');
    });
  });

  describe('the signed body', () => {
    it('signs the raw bytes: a re-serialized body does not verify', async () => {
      const orderId = newOrderId();
      const sent = `{ "order_id": "${orderId}", "amount": 1500.50, "currency": "RUB", "country": "RU", "callback_url": "https://shop.example/cb" }`;
      const accepted = await merchant.request({ method: 'POST', path: '/v2/payments/incoming', body: sent });
      expect(accepted.status).toBe(201);
      const reserialized = JSON.stringify(JSON.parse(sent));
      const rejected = await merchant.request({
        method: 'POST',
        path: '/v2/payments/incoming',
        body: sent.replace(orderId, `${orderId}-2`),
        signedBody: reserialized,
      });
      expectError(rejected, 401, 'INVALID_SIGNATURE');
    });

    it('signs a GET with the trailing dot of the empty body', async () => {
      const orderId = newOrderId();
      await createOrder(orderId);
      const path = `/v2/payments/status/${orderId}`;
      expect((await merchant.get(path)).status).toBe(200);
      const timestamp = String(nowSeconds());
      const withoutDot = createHmac('sha256', merchant.credentials.apiSecret).update(`${timestamp}.${path}`).digest('hex');
      const response = await rawRequest(
        system.gatewayUrl,
        'GET',
        path,
        { 'x-api-key': merchant.credentials.merchantId, 'x-timestamp': timestamp, 'x-signature': withoutDot },
        Buffer.alloc(0),
      );
      expectError(response, 401, 'INVALID_SIGNATURE');
    });
  });

  describe('the timestamp window', () => {
    it.each([290, -290])('accepts a clock %s s off', async (skew) => {
      const response = await merchant.request({
        method: 'POST',
        path: '/v2/payments/incoming',
        body: incomingPayment(newOrderId()),
        timestampSeconds: nowSeconds() + skew,
      });
      expect(response.status).toBe(201);
    });

    it.each([310, -310])('refuses a clock %s s off and tells the server time', async (skew) => {
      const response = await merchant.request({
        method: 'POST',
        path: '/v2/payments/incoming',
        body: incomingPayment(newOrderId()),
        timestampSeconds: nowSeconds() + skew,
      });
      expectError(response, 401, 'TIMESTAMP_OUT_OF_RANGE');
      expect(Math.abs(response.body.server_time - nowSeconds())).toBeLessThanOrEqual(5);
    });

    it('refuses a timestamp in milliseconds', async () => {
      const response = await merchant.request({ method: 'GET', path: '/v2/payments/status/x', headers: { 'x-timestamp': String(Date.now()) } });
      expectError(response, 401, 'TIMESTAMP_OUT_OF_RANGE');
    });
  });

  describe('the headers', () => {
    it.each(['x-api-key', 'x-timestamp', 'x-signature'])('refuses a request without %s and names it', async (header) => {
      const response = await merchant.request({
        method: 'POST',
        path: '/v2/payments/incoming',
        body: incomingPayment(newOrderId()),
        headers: { [header]: null },
      });
      expectError(response, 401, 'MISSING_AUTH_HEADER');
      expect(response.body.error.details).toEqual([{ field: header, issue: 'is required' }]);
    });

    it('refuses an unknown key', async () => {
      const stranger = new SignedClient(system.gatewayUrl, { merchantId: 'mch_000000000000000000000000', apiSecret: 'sk_guess' });
      expectError(await stranger.get('/v2/payments/status/x'), 401, 'INVALID_API_KEY');
      const malformed = new SignedClient(system.gatewayUrl, { merchantId: 'not-a-merchant', apiSecret: 'sk_guess' });
      expectError(await malformed.get('/v2/payments/status/x'), 401, 'INVALID_API_KEY');
    });

    it('refuses an upper-case hex signature', async () => {
      const path = '/v2/payments/status/x';
      const timestamp = String(nowSeconds());
      const upper = signatureOf(merchant.credentials.apiSecret, timestamp, path, Buffer.alloc(0)).toUpperCase();
      const response = await merchant.request({ method: 'GET', path, timestampSeconds: Number(timestamp), headers: { 'x-signature': upper } });
      expectError(response, 401, 'INVALID_SIGNATURE');
    });
  });

  describe('limits checked before any signature work', () => {
    it('answers an oversized body with 413 even when the signature is wrong', async () => {
      const huge = JSON.stringify({ ...incomingPayment(newOrderId()), padding: 'x'.repeat(200 * 1024) });
      const response = await merchant.request({ method: 'POST', path: '/v2/payments/incoming', body: huge, headers: { 'x-signature': '0'.repeat(64) } });
      expectError(response, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('answers a body that is not application/json with 415', async () => {
      const response = await merchant.request({
        method: 'POST',
        path: '/v2/payments/incoming',
        body: incomingPayment(newOrderId()),
        headers: { 'content-type': 'text/plain' },
      });
      expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });
});
