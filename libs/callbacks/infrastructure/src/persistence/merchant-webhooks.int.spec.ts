/**
 * Goal: the store behind merchants' webhook tools. The delivery log is one merchant's only,
 * newest first, paged by keyset on (merchant_id, list_position) through its index (bounded
 * cost, whatever the history), filtered by order (a dispute's disputed order), status and type;
 * a redelivery never reaches another merchant's callback and is refused while the endpoint is
 * disabled; an endpoint's run of failures grows from its first failure, and a success or a
 * re-enable ends it.
 * Method: the callbacks migrations on a private real PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { shouldDisableEndpoint, type CallbackIntent } from '@mp/callbacks-domain';
import type { WebhookDeliveriesQueryDto } from '@mp/contracts-callbacks';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource, EntityManager } from 'typeorm';
import { CALLBACKS_MIGRATIONS } from '../callbacks.module';
import { insertDeliveries, type NewDelivery } from './delivery.store';
import { findMerchantDelivery, listMerchantDeliveries, scheduleMerchantRedelivery } from './delivery-log.store';
import { disableEndpoint, enableEndpoint, recordEndpointHealth } from './endpoint-health.store';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const URL_A = 'https://shop.example/cb';

function delivery(merchantId: string, subject: { kind: string; id: string }, body: object = {}, url = URL_A): NewDelivery {
  const id = randomUUID();
  const intent: CallbackIntent = {
    merchantId,
    callbackType: subject.kind === 'dispute' ? 'dispute.opened' : 'payment.succeeded',
    subject,
    stateVersion: 1,
    target: { kind: 'url', url },
    state: {},
    occurredAt: NOW.toISOString(),
  };
  return {
    deliveryId: `msg_${id.replace(/-/g, '')}`,
    sourceEvent: { id, type: 'Whatever', topic: 'payments.order.events' },
    intent,
    targetUrl: url,
    body: JSON.stringify(body),
  };
}

describe('merchant webhook tools on real Postgres', () => {
  let dataSource: DataSource;
  const list = (merchantId: string, query: Partial<WebhookDeliveriesQueryDto> = {}) =>
    listMerchantDeliveries(dataSource.manager, merchantId, query as WebhookDeliveriesQueryDto);

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('cbmerchant', CALLBACKS_MIGRATIONS);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it("lists one merchant's deliveries newest first by cursor, filters them, and never shows or redelivers another merchant's", async () => {
    const mine = [
      delivery('mch_a', { kind: 'payment_order', id: 'A-1' }),
      delivery('mch_a', { kind: 'dispute', id: 'dsp_1' }, { data: { order_id: 'A-1' } }),
      delivery('mch_a', { kind: 'payment_order', id: 'A-2' }),
    ];
    const theirs = delivery('mch_b', { kind: 'payment_order', id: 'A-1' });
    for (const next of [...mine, theirs]) await insertDeliveries(dataSource.manager, [next], NOW);

    const first = await list('mch_a', { limit: '2' });
    expect([first.data.map((row) => row.delivery_id), first.has_more]).toEqual([[mine[2]?.deliveryId, mine[1]?.deliveryId], true]);
    const second = await list('mch_a', { limit: '2', cursor: first.next_cursor as string });
    expect([second.data.map((row) => row.delivery_id), second.has_more, second.next_cursor]).toEqual([[mine[0]?.deliveryId], false, null]);
    expect((await list('mch_a', { order_id: 'A-1' })).data.map((row) => [row.delivery_id, row.order_id, row.event_type])).toEqual([
      [mine[1]?.deliveryId, 'A-1', 'dispute.opened'],
      [mine[0]?.deliveryId, 'A-1', 'payment.succeeded'],
    ]);
    expect((await list('mch_a', { event_type: 'dispute.opened', status: 'pending' })).data).toHaveLength(1);
    expect((await list('mch_a', { status: 'succeeded' })).data).toEqual([]);
    await expect(list('mch_a', { cursor: Buffer.from('ord:12').toString('base64url') })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });

    expect(await findMerchantDelivery(dataSource.manager, 'mch_b', mine[0]?.deliveryId as string)).toBeNull();
    expect(await findMerchantDelivery(dataSource.manager, 'mch_a', mine[0]?.deliveryId as string)).toMatchObject({
      url: URL_A,
      attempt_count: 0,
      last_response_code: null,
      attempts: [],
    });
    expect(await dataSource.transaction((manager) => scheduleMerchantRedelivery(manager, 'mch_b', mine[0]?.deliveryId as string, NOW))).toBe('not_found');
    await dataSource.transaction((manager) => disableEndpoint(manager, 'mch_a', URL_A, 'gone', 'answered 410', NOW));
    expect(await dataSource.transaction((manager) => scheduleMerchantRedelivery(manager, 'mch_a', mine[0]?.deliveryId as string, NOW))).toBe(
      'endpoint_disabled',
    );
    expect(await dataSource.transaction((manager) => enableEndpoint(manager, 'mch_a', URL_A, NOW))).toBe(3);
    expect(await dataSource.transaction((manager) => scheduleMerchantRedelivery(manager, 'mch_a', mine[0]?.deliveryId as string, NOW))).toBe('scheduled');
  });

  it("reads a page through the merchant's index, not the whole table", async () => {
    await dataSource.query(
      `INSERT INTO callback_deliveries (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type, state_version, target_url, body, status, created_at)
       SELECT 'msg_' || replace(id::text, '-', ''), id, 'Whatever', 't', 'mch_' || (n % 50), 'payment_order', 'O-' || n, 'payment.succeeded', 1, $1, '{}', 'succeeded', $2
         FROM (SELECT gen_random_uuid() AS id, n FROM generate_series(1, 20000) n) rows`,
      [URL_A, NOW],
    );
    await dataSource.query('ANALYZE callback_deliveries');
    type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };
    const plans: PlanNode[] = [];
    const explaining = {
      query: async (sql: string, parameters: unknown[]) => {
        const [
          {
            'QUERY PLAN': [root],
          },
        ] = await dataSource.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters);
        plans.push(root.Plan);
        return [];
      },
    } as unknown as EntityManager;
    const scansOf = (node: PlanNode): string[] => [
      ...(node['Relation Name'] === 'callback_deliveries' ? [`${node['Node Type']} ${node['Index Name'] ?? ''}`.trim()] : []),
      ...(node.Plans ?? []).flatMap(scansOf),
    ];
    await listMerchantDeliveries(explaining, 'mch_7', { limit: '50' } as WebhookDeliveriesQueryDto);
    await listMerchantDeliveries(explaining, 'mch_7', { limit: '50', order_id: 'O-7' } as WebhookDeliveriesQueryDto);
    expect(plans.map(scansOf)).toEqual([
      [expect.stringMatching(/^Index Scan( Backward)? callback_deliveries_merchant_log$/)],
      [expect.stringMatching(/callback_deliveries_merchant_order_log$/)],
    ]);
  });

  it("counts an endpoint's failures in a row from the first one, ends the run on a success or a re-enable", async () => {
    const minutes = (count: number) => new Date(NOW.getTime() + count * 60_000);
    const policy = { failureThreshold: 3, minimumDurationMs: 60 * 60_000 };
    const fail = (at: Date) => dataSource.transaction((manager) => recordEndpointHealth(manager, 'mch_c', URL_A, 'down', at));
    expect(await fail(minutes(0))).toEqual({ consecutiveFailures: 1, failingSince: minutes(0) });
    await fail(minutes(10));
    const third = await fail(minutes(30));
    expect(third).toEqual({ consecutiveFailures: 3, failingSince: minutes(0) });
    expect(shouldDisableEndpoint(third as NonNullable<typeof third>, policy, minutes(30))).toBe(false);
    const fourth = await fail(minutes(61));
    expect(shouldDisableEndpoint(fourth as NonNullable<typeof fourth>, policy, minutes(61))).toBe(true);

    expect(await dataSource.transaction((manager) => recordEndpointHealth(manager, 'mch_c', URL_A, 'up', minutes(62)))).toBeNull();
    expect(await fail(minutes(63))).toEqual({ consecutiveFailures: 1, failingSince: minutes(63) });
    await dataSource.transaction((manager) => disableEndpoint(manager, 'mch_c', URL_A, 'consecutive_failures', 'too many', minutes(64)));
    await dataSource.transaction((manager) => enableEndpoint(manager, 'mch_c', URL_A, minutes(65)));
    expect(await fail(minutes(66))).toEqual({ consecutiveFailures: 1, failingSince: minutes(66) });
  });
});
