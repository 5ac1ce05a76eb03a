/**
 * Goal: a pay-in may name its method (docs/api/endpoints.md), and an id that does not match its
 * pattern (here a NUL byte) is a 4xx with the error body at every hop, never a 5xx. Method: the
 * real gateway, payments and ledger services; merchant and back-office requests through the
 * gateway, and the payments and ledger internal APIs called directly as another service would.
 */
import {
  createOperator,
  rawRequest,
  registerAgent,
  SignedClient,
  SystemUnderTest,
  type BackofficeClient,
  type RegisteredAgent,
  type TestResponse,
} from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('method on pay-ins and malformed ids', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    merchant = await system.createClient('Method shop');
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'sbp', country: 'RU', currency: 'RUB' }]);
  });
  afterAll(async () => system?.stop());

  /** The gateway's error body: `{"error": {"code", "message", "details"}, "request_id"}`. */
  function expectGatewayError(response: TestResponse, status: number, code: string, field?: string) {
    expect([response.status, response.body?.error?.code]).toEqual([status, code]);
    expect(typeof response.body.error.message).toBe('string');
    expect(Array.isArray(response.body.error.details)).toBe(true);
    expect(response.body.request_id).toMatch(/^req_/);
    if (field) expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
  }

  /** An internal API's error body: `{code, message, details}`. */
  function expectInternalError(response: TestResponse, status: number, code: string, field?: string) {
    expect([response.status, response.body?.code]).toEqual([status, code]);
    expect(typeof response.body.message).toBe('string');
    expect(Array.isArray(response.body.details)).toBe(true);
    if (field) expect(response.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
  }

  /** As the service's real callers do: with a service token (the gateway's, or payments' for holds), the operator's for a deposit adjustment. */
  const internal = async (baseUrl: string, method: string, path: string, body?: object) => {
    const callee = baseUrl === system.ledgerUrl ? 'ledger' : 'payments';
    const auth = await system.internalHeaders(callee, path === '/internal/holds' ? { as: 'payments' } : { actor: { type: 'operator', id: 'op_1' } });
    return rawRequest(
      baseUrl,
      method,
      path,
      { ...(body ? { 'content-type': 'application/json' } : {}), ...auth },
      Buffer.from(body ? JSON.stringify(body) : ''),
    );
  };

  describe('method on POST /v2/payments/incoming', () => {
    it('takes sbp over the default bank_card for RUB; the order has its method and fee', async () => {
      const chosen = await merchant.post('/v2/payments/incoming', incomingPayment(newOrderId('sbp'), { method: 'sbp' }));
      expect([chosen.status, chosen.body.method, chosen.body.fee]).toEqual([201, 'sbp', 30.01]);
      const defaulted = await merchant.post('/v2/payments/incoming', incomingPayment(newOrderId('default')));
      expect([defaulted.status, defaulted.body.method, defaulted.body.fee]).toEqual([201, 'bank_card', 37.51]);
      expect((await merchant.get(`/v2/payments/status/${chosen.body.order_id}`)).body).toMatchObject({ method: 'sbp', fee: 30.01 });
    });

    it('refuses a method not offered for pay-ins in that country and currency, naming method', async () => {
      for (const method of ['upi', 'bank_transfer', 'no_such_method']) {
        expectGatewayError(await merchant.post('/v2/payments/incoming', incomingPayment(newOrderId('unknown'), { method })), 400, 'VALIDATION_ERROR', 'method');
      }
      expectGatewayError(
        await merchant.post('/v2/payments/incoming', incomingPayment(newOrderId('malformed'), { method: 'SBP!' })),
        400,
        'VALIDATION_ERROR',
        'method',
      );
    });

    it('answers a retry with another method DUPLICATE_ORDER, and a retry without one with the order', async () => {
      const orderId = newOrderId('retry');
      expect((await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { method: 'sbp' }))).status).toBe(201);
      expectGatewayError(await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { method: 'bank_card' })), 409, 'DUPLICATE_ORDER', 'order_id');
      const withoutMethod = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
      expect([withoutMethod.status, withoutMethod.body.method]).toEqual([201, 'sbp']);
    });
  });

  describe('a NUL byte in an id', () => {
    const nul = 'a%00b';

    it('is an unknown order on /v2 (status and cancel)', async () => {
      expectGatewayError(await merchant.get(`/v2/payments/status/${nul}`), 404, 'ORDER_NOT_FOUND');
      expectGatewayError(await merchant.post(`/v2/payments/${nul}/cancel`, {}), 404, 'ORDER_NOT_FOUND');
    });

    it('is an unknown order on /backoffice/v1 for operators and agents', async () => {
      const merchantId = merchant.credentials.merchantId;
      expectGatewayError(await operator.request('GET', `/backoffice/v1/orders/${merchantId}/${nul}`), 404, 'ORDER_NOT_FOUND');
      expectGatewayError(await operator.request('GET', `/backoffice/v1/orders/mch_${nul}/A-1`), 404, 'ORDER_NOT_FOUND');
      expectGatewayError(await agent.client.request('GET', `/backoffice/v1/agent/orders/${merchantId}/${nul}`), 404, 'ORDER_NOT_FOUND');
      expectGatewayError(await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${nul}/confirm`, {}), 404, 'ORDER_NOT_FOUND');
      expectGatewayError(await operator.request('GET', `/backoffice/v1/merchants/mch_${nul}/methods`), 404, 'NOT_FOUND');
      expectGatewayError(
        await operator.request('PUT', `/backoffice/v1/agents/agt_${nul}`, {
          display_name: 'X',
          payment_details: 'Y',
          serves: [{ method: 'sbp', country: 'RU', currency: 'RUB' }],
        }),
        404,
        'NOT_FOUND',
      );
    });

    it('is a VALIDATION_ERROR naming the field in a back-office body', async () => {
      const response = await operator.request('POST', '/backoffice/v1/agents', {
        display_name: 'Iv\u0000an',
        payment_details: 'Card',
        serves: [{ method: 'sbp', country: 'RU', currency: 'RUB' }],
      });
      expectGatewayError(response, 400, 'VALIDATION_ERROR', 'display_name');
    });

    it('is a 4xx with the error body on the payments internal API', async () => {
      const merchantId = merchant.credentials.merchantId;
      expectInternalError(await internal(system.paymentsUrl, 'GET', `/internal/merchants/${merchantId}/orders/${nul}`), 404, 'ORDER_NOT_FOUND');
      expectInternalError(await internal(system.paymentsUrl, 'GET', `/internal/orders/${merchantId}/${nul}`), 404, 'ORDER_NOT_FOUND');
      expectInternalError(await internal(system.paymentsUrl, 'GET', `/internal/merchants/${merchantId}/orders/${nul}/receipts`), 404, 'ORDER_NOT_FOUND');
      expectInternalError(await internal(system.paymentsUrl, 'GET', `/internal/payer-pages/${nul}`), 404, 'NOT_FOUND');
      expectInternalError(await internal(system.paymentsUrl, 'GET', `/internal/agents/agt_${nul}/orders`), 404, 'NOT_FOUND');
      expectInternalError(await internal(system.paymentsUrl, 'GET', `/internal/receipts/rcp_${nul}/content`), 404, 'NOT_FOUND');
      expectInternalError(
        await internal(system.paymentsUrl, 'GET', `/internal/merchants/${merchantId}/orders?cursor=${nul}`),
        400,
        'VALIDATION_ERROR',
        'cursor',
      );
      expectInternalError(
        await internal(system.paymentsUrl, 'GET', `/internal/merchants/${merchantId}/orders?created_from=${nul}`),
        400,
        'VALIDATION_ERROR',
        'created_from',
      );
      const agentWithNul = { display_name: 'Iv\u0000an', payment_details: 'Card', serves: [{ method: 'sbp', country: 'RU', currency: 'RUB' }] };
      expectInternalError(
        await internal(system.paymentsUrl, 'PUT', `/internal/agents/${agent.agentId}`, agentWithNul),
        400,
        'VALIDATION_ERROR',
        'display_name',
      );
    });

    it('is a 4xx with the error body on the ledger internal API', async () => {
      const merchantId = merchant.credentials.merchantId;
      expectInternalError(await internal(system.ledgerUrl, 'GET', `/internal/merchants/mch_${nul}/balances`), 404, 'NOT_FOUND');
      expectInternalError(
        await internal(system.ledgerUrl, 'GET', `/internal/merchants/${merchantId}/entries?cursor=${nul}`),
        400,
        'VALIDATION_ERROR',
        'cursor',
      );
      const hold = {
        hold_id: 'payout:a\u0000b',
        merchant_id: merchantId,
        currency: 'RUB',
        amount_minor: '100',
        fee_minor: '0',
        reference: { kind: 'payment_order', id: 'a\u0000b' },
      };
      const refused = await internal(system.ledgerUrl, 'POST', '/internal/holds', hold);
      expectInternalError(refused, 400, 'VALIDATION_ERROR', 'hold_id');
      expect(refused.body.details.map((detail: { field: string }) => detail.field)).toContain('reference.id');
      const adjustment = { adjustment_id: 'ADJ-1', currency: 'USD', amount_minor: '100', reason: 'top-up\u0000', operator_id: 'op_1' };
      expectInternalError(
        await internal(system.ledgerUrl, 'POST', `/internal/merchants/${merchantId}/deposit-adjustments`, adjustment),
        400,
        'VALIDATION_ERROR',
        'reason',
      );
    });
  });
});
