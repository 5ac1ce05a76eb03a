/**
 * Goal: TLS on the internal listeners (docs/operations/internal-tls.md). The system runs with a
 * keystore per service made by the script compose's init runs (deploy/kafka/make-tls.sh), and
 * the CA trusted through NODE_EXTRA_CA_CERTS: a pay-in crosses the gateway → payments → ledger
 * calls and the dispatcher's webhook-profile read over HTTPS; no listener answers clear HTTP or
 * a client that does not trust the CA; a keystore that cannot be opened stops the boot.
 */
import { writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { join } from 'node:path';
import {
  BackofficeClient,
  CallbackReceiver,
  CATALOG_SERVICE_NAMES,
  createOperator,
  registerAgent,
  runLedgerAudit,
  SignedClient,
  SystemUnderTest,
  type RegisteredAgent,
} from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

/** The TLS handshake's verdict for a client that trusts only the public CAs: the error code, or 'trusted'. */
function handshakeWithPublicRoots(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername: 'localhost' }, () => {
      resolve('trusted');
      socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('internal TLS', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    system = await SystemUnderTest.start({ internalTls: true, env: { gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true' } } });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    // The keystores come from keytool, a JVM start per step, before the services start.
  }, 300_000);
  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  it('runs a pay-in over HTTPS between the services: the balance moves, and the callback is signed with the secret the dispatcher read over TLS', async () => {
    const created = await operator.request('POST', '/backoffice/v1/merchants', { name: 'TLS shop' });
    expect(created.status).toBe(201);
    const merchant = new SignedClient(system.gatewayUrl, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret });
    receiver = await CallbackReceiver.start({ secrets: [created.body.webhook_secret] });

    const orderId = newOrderId('tls');
    const payIn = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 1500.5, callback_url: receiver.url() }));
    expect(payIn.status).toBe(201);
    const token = String(payIn.body.redirect_url).split('/pay/')[1];
    expect((await fetch(`${system.gatewayUrl}/pay/${token}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${system.gatewayUrl}/pay/${token}/paid`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const confirmed = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {});
    expect(confirmed.status).toBe(200);

    const available = () =>
      merchant
        .get('/v2/merchant/balances')
        .then((response) => response.body.settlement.find((entry: { currency: string }) => entry.currency === 'RUB')?.available ?? 0);
    // 1,500.50 less the 2.5 % fee: the ledger booked it from payments' event, and the gateway read it over HTTPS.
    await eventually(available, (rub) => rub === 1462.99, 'the settled balance');
    const [callback] = await eventually(
      () => receiver.received,
      (received) => received.length === 1,
      'the signed callback',
    );
    expect(callback?.verifiedWith).toEqual([created.body.webhook_secret]);
    expect(JSON.parse(callback?.body ?? '{}')).toMatchObject({ type: 'payment.succeeded', data: { order_id: orderId, status: 'SUCCEEDED' } });
  });

  it('serves every internal listener over HTTPS only, with a certificate only the platform CA vouches for', async () => {
    const listeners = [...CATALOG_SERVICE_NAMES.filter((name) => name !== 'gateway').map((name) => system.urlOf(name)), system.gatewayInternalUrl];
    expect(listeners).toHaveLength(6);
    for (const url of listeners) {
      expect(url).toMatch(/^https:/);
      const health = await system.fetchInternal(`${url}/health`);
      expect(health.status).toBe(200);
      const port = Number(new URL(url).port);
      // Clear HTTP to a TLS port gets no HTTP answer at all.
      await expect(fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
      expect(await handshakeWithPublicRoots(port)).toBe('SELF_SIGNED_CERT_IN_CHAIN');
    }
    // The webhook-profile route still wants the dispatcher's service token over TLS.
    const withoutToken = await system.fetchInternal(`${system.gatewayInternalUrl}/internal/merchants/mch_unknown/webhook-profile`);
    expect(withoutToken.status).toBe(401);
  });

  it('refuses to boot on a keystore it cannot open, naming the setting', async () => {
    const wrongPassword = join(system.internalTls?.keystoreDirOf('ledger') ?? '', 'wrong.password');
    writeFileSync(wrongPassword, 'not-the-password\n');
    await expect(system.startService('ledger-wrong-tls', { INTERNAL_TLS_KEYSTORE_PASSWORD_FILE: wrongPassword })).rejects.toThrow(
      /INTERNAL_TLS_KEYSTORE_FILE .* cannot be used/,
    );
    await expect(system.startService('ledger-half-tls', { INTERNAL_TLS_KEYSTORE_PASSWORD_FILE: '' })).rejects.toThrow(
      /INTERNAL_TLS_KEYSTORE_FILE and INTERNAL_TLS_KEYSTORE_PASSWORD_FILE go together/,
    );
  });

  it('leaves the books balanced', async () => {
    const audit = await runLedgerAudit(system);
    expect(audit.output).toContain('OK: every balance equals its postings');
    expect(audit.code).toBe(0);
  });
});
