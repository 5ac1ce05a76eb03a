/**
 * Goal: endpoints 4 and 5 (docs/api/endpoints.md): newest first, every filter, cursor pages
 * with no duplicates or gaps even while orders are being created, and list items that are
 * exactly the state objects. Method: a merchant with a known set of orders in known states.
 */
import { createOperator, registerAgent, SignedClient, SystemUnderTest } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('order lists', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  const created: string[] = [];
  const cancelled: string[] = [];

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    merchant = await system.createClient('Listed shop');
    for (let index = 0; index < 7; index += 1) {
      const orderId = newOrderId('list');
      expect((await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 1000 + index }))).status).toBe(201);
      created.push(orderId);
    }
    for (const orderId of [created[1], created[4]]) {
      expect((await merchant.post(`/v2/payments/${orderId}/cancel`, {})).status).toBe(200);
      cancelled.push(orderId);
    }
  });
  afterAll(async () => system?.stop());

  const list = (body: object) => merchant.post('/v2/payments/incoming/list', body);
  const ids = (response: { body: { data: Array<{ order_id: string }> } }) => response.body.data.map((order) => order.order_id);

  it('returns the latest orders for {} and items equal to the state objects', async () => {
    const response = await list({});
    expect(response.status).toBe(200);
    expect(ids(response)).toEqual([...created].reverse());
    expect(response.body).toMatchObject({ has_more: false, next_cursor: null });
    const state = await merchant.get(`/v2/payments/status/${created[3]}`);
    expect(response.body.data.find((order: { order_id: string }) => order.order_id === created[3])).toEqual(state.body);
  });

  it('filters by status and by creation time', async () => {
    expect(ids(await list({ status: 'CANCELLED' })).sort()).toEqual([...cancelled].sort());
    const middle = (await merchant.get(`/v2/payments/status/${created[3]}`)).body.created_at;
    expect(ids(await list({ created_from: middle }))).toEqual([created[6], created[5], created[4], created[3]]);
    expect(ids(await list({ created_to: middle }))).toEqual([created[3], created[2], created[1], created[0]]);
    expect(ids(await merchant.post('/v2/payments/outgoing/list', {}))).toEqual([]);
  });

  it('pages with a cursor without duplicates or gaps while new orders arrive', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response: { status: number; body: { data: Array<{ order_id: string }>; has_more: boolean; next_cursor: string | null } } = await list({
        limit: 3,
        ...(cursor ? { cursor } : {}),
      });
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...response.body.data.map((order) => order.order_id));
      cursor = response.body.next_cursor;
      expect(response.body.has_more).toBe(cursor !== null);
      pages += 1;
      // A new order between pages belongs before the first page, never inside the next ones.
      await merchant.post('/v2/payments/incoming', incomingPayment(newOrderId('during-paging')));
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it.each([
    [{ colour: 'red' }, 'colour'],
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: '10' }, 'limit'],
    [{ status: 'DONE' }, 'status'],
    [{ created_from: 'yesterday' }, 'created_from'],
    [{ cursor: 'not a cursor!' }, 'cursor'],
    [{ cursor: 'cDp4' }, 'cursor'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await list(body);
    expect([response.status, response.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
  });

  it('gives operators the merchants and the agents newest first, with cursors and filters', async () => {
    const operator = await createOperator(system);
    /** Every page of a back-office list, following next_cursor. */
    const everyPage = async <Item>(path: string, limit: number): Promise<Item[][]> => {
      const pages: Item[][] = [];
      let cursor: string | null = null;
      do {
        const separator = path.includes('?') ? '&' : '?';
        const response: { status: number; body: { data: Item[]; has_more: boolean; next_cursor: string | null } } = await operator.request(
          'GET',
          `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(response.status).toBe(200);
        pages.push(response.body.data);
        cursor = response.body.next_cursor;
        expect(response.body.has_more).toBe(cursor !== null);
      } while (cursor !== null);
      return pages;
    };

    const later = await system.createClient('Listed later');
    expect((await operator.request('POST', `/backoffice/v1/merchants/${later.credentials.merchantId}/suspend`, { reason: 'listed as suspended' })).status).toBe(
      200,
    );
    const merchants = (await everyPage<{ merchant_id: string; status: string; mode: string }>('/backoffice/v1/merchants', 1)).flat();
    expect(merchants.map((entry) => entry.merchant_id).slice(0, 2)).toEqual([later.credentials.merchantId, merchant.credentials.merchantId]);
    expect(merchants[0]).toMatchObject({ status: 'suspended', mode: 'live', name: 'Listed later' });
    expect(JSON.stringify(merchants)).not.toMatch(/secret/);
    const suspended = await operator.request('GET', '/backoffice/v1/merchants?status=suspended');
    expect(suspended.body.data.map((entry: { merchant_id: string }) => entry.merchant_id)).toEqual([later.credentials.merchantId]);

    const first = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }], { display_name: 'First agent' });
    const second = await registerAgent(system, operator, [{ method: 'sbp', country: 'RU', currency: 'RUB' }], { display_name: 'Second agent' });
    expect(
      (
        await operator.request('PUT', `/backoffice/v1/agents/${first.agentId}`, {
          display_name: 'First agent',
          payment_details: 'Card 2200 0000 0000 0001',
          serves: [{ method: 'bank_card', country: 'RU', currency: 'RUB' }],
          active: false,
        })
      ).status,
    ).toBe(200);
    const agents = await everyPage<{ agent_id: string; display_name: string; active: boolean }>('/backoffice/v1/agents', 1);
    expect(agents.flat().map((agent) => [agent.agent_id, agent.display_name, agent.active])).toEqual([
      [second.agentId, 'Second agent', true],
      [first.agentId, 'First agent', false],
    ]);
    const active = await operator.request('GET', '/backoffice/v1/agents?active=true');
    expect(active.body.data.map((agent: { agent_id: string }) => agent.agent_id)).toEqual([second.agentId]);

    for (const bad of [
      '/backoffice/v1/merchants?status=gone',
      '/backoffice/v1/merchants?limit=0',
      '/backoffice/v1/merchants?cursor=%25%25',
      '/backoffice/v1/agents?active=yes',
      '/backoffice/v1/agents?order=asc',
    ]) {
      const refused = await operator.request('GET', bad);
      expect([bad, refused.status, refused.body.error.code]).toEqual([bad, 400, 'VALIDATION_ERROR']);
    }
    // Agents see neither list.
    expect((await second.client.request('GET', '/backoffice/v1/merchants')).status).toBe(403);
    expect((await second.client.request('GET', '/backoffice/v1/agents')).status).toBe(403);
  });
});
