/**
 * Goal: the console's backend-for-frontend (docs/operations/console.md), end to end in the real
 * gateway: the session cookie, sign-in per role, CSRF, role isolation, the relays signing as the
 * merchant or carrying the bearer through the gateway's own routes, idle expiry, logout, and the
 * bundle (a fixture bundle here: the SPA is built by its own project). One system for all cases.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BackofficeClient, createOperator, registerAgent, SignedClient, SystemUnderTest, type RegisteredAgent } from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { incomingPayment, newOrderId, RUB_BANK_CARD_METHODS } from './fixtures';

interface ConsoleAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes: Buffer;
  body: any;
}

const CSP =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const INDEX_HTML = '<!doctype html><html><head><script type="module" src="/console/assets/x.js"></script></head><body><div id="root"></div></body></html>';

describe('console BFF', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let merchantA: SignedClient;
  let merchantB: SignedClient;
  let origin: string;
  /** Every console answer of a merchant session, scanned for the API secret at the end. */
  const merchantAnswers: ConsoleAnswer[] = [];

  // rawPath: the path goes on the wire exactly as written (no URL parsing, which would turn `\` into `/`).
  const send = (
    method: string,
    path: string,
    options: { cookie?: string; csrf?: string; origin?: string | null; body?: unknown; raw?: Buffer; headers?: Record<string, string>; rawPath?: boolean } = {},
  ) =>
    new Promise<ConsoleAnswer>((resolve, reject) => {
      const bytes = options.raw ?? (options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body)));
      const headers: Record<string, string> = {
        ...(options.origin === null ? {} : { origin: options.origin ?? origin }),
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...(options.csrf ? { 'x-csrf-token': options.csrf } : {}),
        ...(bytes && !options.raw ? { 'content-type': 'application/json' } : {}),
        ...(bytes ? { 'content-length': String(bytes.length) } : {}),
        ...options.headers,
      };
      const url = new URL(path, system.gatewayUrl);
      const outgoing = httpRequest(
        { host: url.hostname, port: url.port, method, path: options.rawPath ? path : `${url.pathname}${url.search}`, headers },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const bytes = Buffer.concat(chunks);
            const text = bytes.toString('utf8');
            let body: unknown;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              body = undefined;
            }
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text, bytes, body });
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(bytes);
    });
  const errorOf = (answer: ConsoleAnswer) => [answer.status, answer.body?.error?.code];
  const cookieOf = (answer: ConsoleAnswer) => String((answer.headers['set-cookie'] as string[] | undefined)?.[0] ?? '').split(';')[0] ?? '';

  /** Signs in and returns what later requests need. */
  const signIn = async (role: string, credential: string) => {
    const answer = await send('POST', '/console/api/login', { body: { role, credential } });
    expect(answer.status).toBe(200);
    return { cookie: cookieOf(answer), csrf: answer.body.csrf_token as string, session: answer.body };
  };
  const consoleKeyFor = async (merchant: SignedClient) => {
    const issued = await operator.request('POST', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/console-keys`, {});
    expect(issued.status).toBe(201);
    return issued.body as { key_id: string; console_key: string };
  };
  const merchantSession = async (merchant: SignedClient) => {
    const signed = await signIn('merchant', (await consoleKeyFor(merchant)).console_key);
    const call = async (method: string, path: string, body?: unknown) => {
      const answer = await send(method, `/console/api/merchant${path}`, { cookie: signed.cookie, csrf: signed.csrf, body });
      merchantAnswers.push(answer);
      return answer;
    };
    return { ...signed, call };
  };
  const advanceGatewayClock = async (seconds: number) => expect(await system.advanceGatewayClock(seconds)).toBe(200);

  beforeAll(async () => {
    const bundle = mkdtempSync(join(tmpdir(), 'console-bundle-'));
    mkdirSync(join(bundle, 'assets'));
    writeFileSync(join(bundle, 'index.html'), INDEX_HTML);
    writeFileSync(join(bundle, 'assets', 'x.js'), 'console.log("console");\n');
    system = await SystemUnderTest.start({ env: { gateway: { CONSOLE_ASSETS_DIR: bundle, TEST_CLOCK_ENABLED: 'true' } } });
    origin = system.gatewayUrl;
    operator = await createOperator(system, 'Console e2e operator');
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    merchantA = await system.createClient('Console shop A');
    merchantB = await system.createClient('Console shop B');
    for (const merchant of [merchantA, merchantB]) {
      expect((await operator.request('PUT', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/methods`, RUB_BANK_CARD_METHODS)).status).toBe(200);
    }
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('sets the session cookie as __Host-, Secure, HttpOnly, SameSite=Strict, Path=/, and answers the session', async () => {
    const answer = await send('POST', '/console/api/login', { body: { role: 'operator', credential: operator.token } });
    expect(answer.status).toBe(200);
    const cookie = (answer.headers['set-cookie'] as string[])[0] ?? '';
    expect(cookie).toMatch(/^__Host-console_session=[A-Za-z0-9_-]{43};/);
    const attributes = cookie
      .split(';')
      .slice(1)
      .map((part) => part.trim());
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'Secure', 'HttpOnly', 'SameSite=Strict']));
    expect(cookie).not.toMatch(/domain=/i);
    expect(answer.body).toEqual({
      role: 'operator',
      subject_id: expect.stringMatching(/^cred_/),
      merchant_id: null,
      display_name: 'Console e2e operator',
      csrf_token: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(answer.text).not.toContain(operator.token);
    const session = await send('GET', '/console/api/session', { cookie: cookieOf(answer) });
    expect(session.status).toBe(200);
    expect(session.body.subject_id).toBe(answer.body.subject_id);
    expect(errorOf(await send('GET', '/console/api/session'))).toEqual([401, 'CONSOLE_SESSION_REQUIRED']);
  });

  it('signs in each role with its credential and refuses bad, revoked and other-role credentials alike', async () => {
    const key = await consoleKeyFor(merchantA);
    expect((await signIn('merchant', key.console_key)).session).toMatchObject({
      role: 'merchant',
      subject_id: merchantA.credentials.merchantId,
      merchant_id: merchantA.credentials.merchantId,
      display_name: 'Console shop A',
    });
    expect((await signIn('agent', agent.client.token)).session).toMatchObject({ role: 'agent', subject_id: agent.agentId, merchant_id: null });
    const refused = async (role: string, credential: string) =>
      expect(errorOf(await send('POST', '/console/api/login', { body: { role, credential } }))).toEqual([401, 'INVALID_CONSOLE_CREDENTIALS']);
    await refused('merchant', 'mck_' + 'x'.repeat(43));
    await refused('merchant', merchantA.credentials.apiSecret);
    await refused('agent', operator.token);
    await refused('operator', agent.client.token);
    await refused('merchant', operator.token);
    expect((await operator.request('POST', `/backoffice/v1/merchants/${merchantA.credentials.merchantId}/console-keys/${key.key_id}/revoke`)).status).toBe(200);
    await refused('merchant', key.console_key);
    const listed = await operator.request('GET', `/backoffice/v1/merchants/${merchantA.credentials.merchantId}/console-keys`);
    expect(listed.body.data.find((entry: { key_id: string }) => entry.key_id === key.key_id)).toMatchObject({ state: 'revoked' });
    expect(listed.text).not.toContain('mck_');
    const revokedOperator = await createOperator(system, 'Console revoked operator');
    const operators = await operator.request('GET', '/backoffice/v1/operator-credentials');
    const revokedId = operators.body.data.find((entry: { name: string }) => entry.name === 'Console revoked operator').credential_id;
    expect((await operator.request('POST', `/backoffice/v1/operator-credentials/${revokedId}/revoke`)).status).toBe(200);
    await refused('operator', revokedOperator.token);
  });

  it('answers bad console-key requests in the error model, never a 5xx', async () => {
    const keys = `/backoffice/v1/merchants/${merchantA.credentials.merchantId}/console-keys`;
    for (const body of [{ lifetime_days: 'soon' }, { lifetime_days: 0 }, { lifetime_days: 367 }, { lifetime_days: 1.5 }, { key: 'mine' }]) {
      const answer = await operator.request('POST', keys, body);
      expect([JSON.stringify(body), answer.status, answer.body?.error?.code]).toEqual([JSON.stringify(body), 400, 'VALIDATION_ERROR']);
    }
    expect((await operator.request('POST', keys, { lifetime_days: 1 })).status).toBe(201);
    expect((await operator.request('POST', '/backoffice/v1/merchants/mch_000000000000000000000000/console-keys', {})).status).toBe(404);
    expect((await operator.request('POST', `${keys}/ckey_000000000000000000000000/revoke`)).status).toBe(404);
    expect((await operator.request('POST', `${keys}/not-a-key/revoke`)).status).toBe(404);
    expect((await agent.client.request('GET', keys)).status).toBe(403);
  });

  it('never lets a console key through the back office or /v2', async () => {
    const key = await consoleKeyFor(merchantA);
    for (const path of [
      '/backoffice/v1/operator-credentials',
      '/backoffice/v1/agent/orders',
      `/backoffice/v1/merchants/${merchantA.credentials.merchantId}/console-keys`,
    ]) {
      const asBearer = await new BackofficeClient(system.gatewayUrl, key.console_key).request('GET', path);
      expect([path, asBearer.status, asBearer.body?.error?.code]).toEqual([path, 401, 'INVALID_API_KEY']);
    }
    const asSecret = await new SignedClient(system.gatewayUrl, { merchantId: merchantA.credentials.merchantId, apiSecret: key.console_key }).get(
      '/v2/merchant',
    );
    expect(asSecret.status).toBe(401);
  });

  it('refuses changes without the Origin, with a foreign Origin, and without or with a wrong x-csrf-token', async () => {
    expect(errorOf(await send('POST', '/console/api/login', { origin: null, body: { role: 'operator', credential: operator.token } }))).toEqual([
      403,
      'CSRF_TOKEN_INVALID',
    ]);
    expect(
      errorOf(await send('POST', '/console/api/login', { origin: 'https://evil.example', body: { role: 'operator', credential: operator.token } })),
    ).toEqual([403, 'CSRF_TOKEN_INVALID']);
    const { cookie, csrf } = await signIn('operator', operator.token);
    const path = `/console/api/operator/merchants/${merchantB.credentials.merchantId}/console-keys`;
    expect(errorOf(await send('POST', path, { cookie, body: {} }))).toEqual([403, 'CSRF_TOKEN_INVALID']);
    expect(errorOf(await send('POST', path, { cookie, csrf: `${csrf}x`, body: {} }))).toEqual([403, 'CSRF_TOKEN_INVALID']);
    expect(errorOf(await send('POST', path, { cookie, csrf, origin: 'https://evil.example', body: {} }))).toEqual([403, 'CSRF_TOKEN_INVALID']);
    expect(errorOf(await send('POST', '/console/api/logout', { cookie }))).toEqual([403, 'CSRF_TOKEN_INVALID']);
    // With both, the operator's action goes through the back office and into its audit trail as theirs.
    const issued = await send('POST', path, { cookie, csrf, body: {} });
    expect(issued.status).toBe(201);
    // The trail is written as the action's answer leaves, so it is read until it shows.
    const audited = await eventually(
      async () =>
        (await operator.request('GET', `/backoffice/v1/audit?merchant_id=${merchantB.credentials.merchantId}`)).body.data as Array<{
          action: string;
          actor_name: string;
        }>,
      (entries) => entries.some((entry) => entry.action === 'POST /backoffice/v1/merchants/:merchantId/console-keys'),
      'the console-key issue in the audit trail',
      5_000,
    );
    expect(audited.find((entry) => entry.action === 'POST /backoffice/v1/merchants/:merchantId/console-keys')?.actor_name).toBe('Console e2e operator');
  });

  it('keeps each role to its prefix: an agent gets 403 on merchant and operator calls, an operator cannot reach agent routes', async () => {
    const { cookie, csrf } = await signIn('agent', agent.client.token);
    expect(errorOf(await send('GET', '/console/api/merchant/v2/merchant/balances', { cookie }))).toEqual([403, 'CONSOLE_ROLE_FORBIDDEN']);
    expect(errorOf(await send('GET', '/console/api/operator/merchants', { cookie }))).toEqual([403, 'CONSOLE_ROLE_FORBIDDEN']);
    expect(errorOf(await send('GET', '/console/api/operator/system-health', { cookie }))).toEqual([403, 'CONSOLE_ROLE_FORBIDDEN']);
    expect((await send('GET', '/console/api/agent/orders', { cookie, csrf })).status).toBe(200);
    const operatorSession = await signIn('operator', operator.token);
    expect(errorOf(await send('GET', '/console/api/agent/orders', { cookie: operatorSession.cookie }))).toEqual([403, 'CONSOLE_ROLE_FORBIDDEN']);
    expect(errorOf(await send('GET', '/console/api/operator/agent/orders', { cookie: operatorSession.cookie }))).toEqual([404, 'NOT_FOUND']);
    // Paths that a parser behind the relay could read as another prefix are refused by the relay itself.
    for (const path of [
      '/console/api/operator/%61gent/orders',
      '/console/api/operator/%2e%2e/agent/orders',
      '/console/api/operator/..%5Cagent/orders',
      '/console/api/operator/..\\agent/orders',
      '/console/api/operator/merchants/..\\..\\agent/orders',
    ]) {
      expect({ path, answer: errorOf(await send('GET', path, { cookie: operatorSession.cookie, rawPath: true })) }).toEqual({
        path,
        answer: [404, 'NOT_FOUND'],
      });
    }
  });

  it("relays a merchant as itself: an order made through the console is the merchant's, and another merchant cannot read it", async () => {
    const sessionA = await merchantSession(merchantA);
    const orderId = newOrderId('console');
    const created = await sessionA.call('POST', '/v2/payments/incoming', incomingPayment(orderId));
    expect(created.status).toBe(201);
    expect(created.headers['content-security-policy']).toBe(CSP);
    expect((await merchantA.get(`/v2/payments/status/${orderId}`)).body).toMatchObject({ order_id: orderId });
    expect((await sessionA.call('GET', `/v2/payments/status/${orderId}`)).body).toMatchObject({ order_id: orderId });
    const sessionB = await merchantSession(merchantB);
    expect((await sessionB.call('GET', `/v2/payments/status/${orderId}`)).status).toBe(404);
    // The relayed /v2 validation answers pass through: 400 VALIDATION_ERROR, never a 5xx.
    expect(errorOf(await sessionA.call('POST', '/v2/payments/incoming', { order_id: orderId }))).toEqual([400, 'VALIDATION_ERROR']);
    expect(errorOf(await send('POST', '/console/api/login', { raw: Buffer.from('{"role":'), headers: { 'content-type': 'application/json' } }))).toEqual([
      400,
      'VALIDATION_ERROR',
    ]);
    expect(errorOf(await send('POST', '/console/api/login', { body: { role: 'admin', credential: 'x' } }))).toEqual([400, 'VALIDATION_ERROR']);
  });

  it("never shows the merchant's API secret in any console answer of a merchant session", async () => {
    const session = await merchantSession(merchantA);
    await session.call('GET', '/v2/merchant');
    await session.call('GET', '/v2/merchant/balances');
    await session.call('GET', '/v2/payments/incoming?limit=5');
    expect(merchantAnswers.length).toBeGreaterThan(5);
    for (const answer of merchantAnswers) {
      expect(answer.text).not.toContain(merchantA.credentials.apiSecret);
      expect(answer.text).not.toContain(merchantB.credentials.apiSecret);
      expect(JSON.stringify(answer.headers)).not.toContain(merchantA.credentials.apiSecret);
    }
  });

  it('gives a merchant its sandbox in test mode (/console/api/merchant/test/v2), once an operator issued test credentials, apart from live', async () => {
    const shop = await system.createClient('Console sandbox shop');
    const session = await merchantSession(shop);
    const noSandbox = await session.call('GET', '/test/v2/merchant');
    expect([...errorOf(noSandbox), noSandbox.body.error.message]).toEqual([404, 'NOT_FOUND', expect.stringContaining('test-credentials')]);
    // Still signed in: asking for a sandbox that is not there ends nothing.
    expect((await session.call('GET', '/v2/merchant')).status).toBe(200);

    const issued = await operator.request('POST', `/backoffice/v1/merchants/${shop.credentials.merchantId}/test-credentials`, {});
    expect(issued.status).toBe(201);
    const sandbox = new SignedClient(system.gatewayUrl, { merchantId: issued.body.merchant_id, apiSecret: issued.body.api_secret });
    expect((await session.call('GET', '/test/v2/merchant')).body).toMatchObject({ merchant_id: `test_${shop.credentials.merchantId}` });
    const orderId = newOrderId('console-sandbox');
    const created = await session.call('POST', '/test/v2/payments/incoming', incomingPayment(orderId, { amount: 1000 }));
    expect(created.status).toBe(201);
    // The order is the sandbox merchant's: read with its own secret, unknown to the live merchant.
    expect((await sandbox.get(`/v2/payments/status/${orderId}`)).status).toBe(200);
    expect((await session.call('GET', `/v2/payments/status/${orderId}`)).status).toBe(404);
    // Test credentials managed from the console: the sandbox's webhook secret rotates, the live one does not move.
    const rotated = await session.call('POST', '/test/v2/merchant/webhook-secret/rotate', {});
    expect([rotated.status, rotated.body.merchant_id]).toEqual([201, issued.body.merchant_id]);
    expect(rotated.body.webhook_secret).not.toBe(issued.body.webhook_secret);
    // A sandbox merchant's own console session has no sandbox of its own.
    const sandboxSession = await merchantSession(sandbox);
    expect(errorOf(await sandboxSession.call('GET', '/test/v2/merchant'))).toEqual([404, 'NOT_FOUND']);
  });

  it('lets an agent confirm a pay-in and complete a payout with a receipt that arrives byte for byte', async () => {
    const { cookie, csrf } = await signIn('agent', agent.client.token);
    const merchantId = merchantA.credentials.merchantId;
    const agentCall = (path: string, options: { body?: unknown; raw?: Buffer; headers?: Record<string, string> } = {}) =>
      send('POST', `/console/api/agent/orders/${merchantId}/${path}`, { cookie, csrf, ...options });
    const payIn = newOrderId('console-funding');
    const created = await merchantA.post('/v2/payments/incoming', incomingPayment(payIn, { amount: 1000 }));
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await agentCall(`${payIn}/confirm`, { body: {} })).status).toBe(200);
    await eventually(
      async () => (await merchantA.get('/v2/merchant/balances')).body.settlement as Array<{ currency: string; available: number }>,
      (rows) => rows.some((row) => row.currency === 'RUB' && row.available > 500),
      'the pay-in credited',
      20_000,
    );

    const payoutId = newOrderId('console-payout');
    expect(
      (
        await merchantA.post('/v2/payments/outgoing', {
          ...incomingPayment(payoutId, { amount: 100 }),
          method: 'bank_card',
          account_number: '4111 1111 1111 1111',
        })
      ).status,
    ).toBe(201);
    expect((await agentCall(`${payoutId}/take`, { body: {} })).status).toBe(200);
    const receipt = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from([0, 0xff, 0x80, 0x7f]),
      Buffer.from('console-receipt'),
    ]);
    const uploaded = await agentCall(`${payoutId}/receipts`, { raw: receipt, headers: { 'content-type': 'image/png', 'x-file-name': 'transfer.png' } });
    expect(uploaded.status).toBe(201);
    expect((await agentCall(`${payoutId}/complete`, { body: { receipt_id: uploaded.body.receipt_id } })).body.status).toBe('SUCCEEDED');

    const session = await merchantSession(merchantA);
    const receipts = await session.call('GET', `/v2/payments/${payoutId}/receipts`);
    expect(receipts.body.data).toEqual([
      expect.objectContaining({ receipt_id: uploaded.body.receipt_id, file_name: 'transfer.png', size_bytes: receipt.length }),
    ]);
    const file = await session.call('GET', receipts.body.data[0].download_path);
    expect([file.status, file.headers['content-type']]).toEqual([200, 'image/png']);
    expect(file.bytes.equals(receipt)).toBe(true);
  });

  it('answers system health to operators, one row per service', async () => {
    const { cookie } = await signIn('operator', operator.token);
    const health = await send('GET', '/console/api/operator/system-health', { cookie });
    expect(health.status).toBe(200);
    expect(health.body.services.map((service: { name: string }) => service.name).sort()).toEqual([
      'callbacks',
      'disputes',
      'gateway',
      'ledger',
      'payments',
      'withdrawals',
    ]);
    expect(health.body.services.find((service: { name: string }) => service.name === 'gateway')).toMatchObject({ ready: true });
  });

  it('ends a session on logout (the old cookie gets 401), and after the idle timeout', async () => {
    const { cookie, csrf } = await signIn('operator', operator.token);
    const out = await send('POST', '/console/api/logout', { cookie, csrf });
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^__Host-console_session=;.*Max-Age=0/);
    expect(errorOf(await send('GET', '/console/api/session', { cookie }))).toEqual([401, 'CONSOLE_SESSION_REQUIRED']);
    expect(errorOf(await send('GET', '/console/api/operator/merchants', { cookie }))).toEqual([401, 'CONSOLE_SESSION_REQUIRED']);
    const audit = await operator.request('GET', '/backoffice/v1/audit?limit=100');
    expect(audit.body.data.map((entry: { action: string }) => entry.action)).toEqual(
      expect.arrayContaining(['POST /console/api/login', 'POST /console/api/logout']),
    );

    const idle = await signIn('operator', operator.token);
    await advanceGatewayClock(31 * 60);
    expect(errorOf(await send('GET', '/console/api/session', { cookie: idle.cookie }))).toEqual([401, 'CONSOLE_SESSION_REQUIRED']);
  });

  it('ends a session whose credential is withdrawn (an agent deactivated mid-session), and one past its absolute lifetime however busy', async () => {
    const leaving = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }], { display_name: 'Leaving agent' });
    const { cookie } = await signIn('agent', leaving.client.token);
    expect((await send('GET', '/console/api/agent/orders', { cookie })).status).toBe(200);
    const profile = {
      display_name: 'Leaving agent',
      payment_details: 'Card 2200 0000 0000 0002',
      serves: [{ method: 'bank_card', country: 'RU', currency: 'RUB' }],
      active: false,
    };
    expect((await operator.request('PUT', `/backoffice/v1/agents/${leaving.agentId}`, profile)).status).toBe(200);
    expect(errorOf(await send('GET', '/console/api/agent/orders', { cookie }))).toEqual([401, 'CONSOLE_SESSION_REQUIRED']);
    expect(errorOf(await send('GET', '/console/api/session', { cookie }))).toEqual([401, 'CONSOLE_SESSION_REQUIRED']);

    // Used every 29 minutes, so never idle: still ended 12 hours after sign-in.
    const busy = await signIn('operator', operator.token);
    // Signed in and never used again: nobody brings its cookie back to end it.
    const forgotten = await signIn('operator', operator.token);
    let minutes = 0;
    while (minutes + 29 < 12 * 60) {
      await advanceGatewayClock(29 * 60);
      minutes += 29;
      expect([minutes, (await send('GET', '/console/api/session', { cookie: busy.cookie })).status]).toEqual([minutes, 200]);
    }
    await advanceGatewayClock(30 * 60);
    expect(errorOf(await send('GET', '/console/api/session', { cookie: busy.cookie }))).toEqual([401, 'CONSOLE_SESSION_REQUIRED']);
    // The forgotten session's row outlives it until the next sign-in deletes rows past their end.
    const forgottenRows = async () =>
      (
        await system.query('gateway', `SELECT 1 FROM console_sessions WHERE session_sha256 = $1`, [
          createHash('sha256')
            .update(forgotten.cookie.split('=')[1] ?? '')
            .digest('hex'),
        ])
      ).length;
    expect(await forgottenRows()).toBe(1);
    await signIn('operator', operator.token);
    expect(await forgottenRows()).toBe(0);
  });

  it("counts sign-ins, relayed calls and active sessions in the gateway's metrics", async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${system.gatewayInternalPort}/metrics`)).text();
    /** The sum of a series' samples that carry every label given (in whatever order the exposition writes them). */
    const valueOf = (name: string, labels: Record<string, string>) =>
      metrics
        .split('\n')
        .filter((line) => line.startsWith(`${name}{`) && Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    expect(valueOf('console_logins_total', { role: 'operator', outcome: 'success' })).toBeGreaterThan(0);
    expect(valueOf('console_logins_total', { role: 'merchant', outcome: 'invalid_credentials' })).toBeGreaterThan(0);
    expect(valueOf('console_relay_requests_total', { role: 'merchant', status_class: '2xx' })).toBeGreaterThan(0);
    expect(valueOf('console_sessions_ended_total', { reason: 'logout' })).toBeGreaterThan(0);
    expect(metrics).toMatch(/^console_active_sessions\{[^}]*\} \d+$/m);
  });

  it('serves index.html for client-side routes and the assets with a long cache, all with the console CSP', async () => {
    for (const path of ['/console', '/console/', '/console/orders/x']) {
      const page = await send('GET', path);
      expect([path, page.status, page.text]).toEqual([path, 200, INDEX_HTML]);
      expect(page.headers['content-security-policy']).toBe(CSP);
      expect(page.headers['cache-control']).toBe('no-store');
    }
    const asset = await send('GET', '/console/assets/x.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-security-policy']).toBe(CSP);
    expect(String(asset.headers['cache-control'])).toMatch(/max-age=31536000.*immutable/);
    expect((await send('GET', '/console/assets/missing.js')).status).toBe(404);
    expect(errorOf(await send('GET', '/console/api/nothing-here'))).toEqual([404, 'NOT_FOUND']);
    // The rest of the gateway keeps its own headers.
    expect((await merchantA.get('/v2/merchant')).headers.get('content-security-policy')).not.toBe(CSP);
  });
});
