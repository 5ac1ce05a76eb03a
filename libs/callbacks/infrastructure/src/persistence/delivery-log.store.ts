// The delivery log's reads (operators' and merchants' views of deliveries and attempts), and a merchant's redelivery.
import type {
  CallbackAttemptView,
  CallbackDeliveryView,
  MerchantWebhookAttemptView,
  MerchantWebhookDeliveryDetailView,
  MerchantWebhookDeliveryPage,
  MerchantWebhookDeliveryView,
  WebhookDeliveriesQueryDto,
} from '@mp/contracts-callbacks';
import { fetchNewestFirstPage, pageFilterOf, PositionCursor, SqlConditions } from '@mp/shared-data-access-postgres';
import type { EntityManager } from 'typeorm';
import { scheduleRedelivery } from './delivery.store';
import { isEndpointDisabled } from './endpoint-health.store';

interface DeliveryRow {
  delivery_id: string;
  merchant_id: string;
  callback_type: string;
  subject_kind: string;
  subject_id: string;
  source_event_id: string;
  source_event_type: string;
  source_topic: string;
  state_version: number;
  target_url: string;
  status: string;
  attempt_count: number;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  body: string;
}

/** The delivery log: deliveries matching the filter, oldest first, each with every attempt. */
export async function findDeliveries(
  manager: EntityManager,
  filter: { merchantId: string; subjectId: string } | { sourceEventId: string } | { deliveryId: string },
): Promise<CallbackDeliveryView[]> {
  const [where, parameters] =
    'deliveryId' in filter
      ? ['delivery_id = $1', [filter.deliveryId]]
      : 'sourceEventId' in filter
        ? ['source_event_id = $1', [filter.sourceEventId]]
        : ['merchant_id = $1 AND subject_id = $2', [filter.merchantId, filter.subjectId]];
  const deliveries: DeliveryRow[] = await manager.query(
    `SELECT * FROM callback_deliveries WHERE ${where} ORDER BY created_at, state_version LIMIT 200`,
    parameters,
  );
  if (deliveries.length === 0) return [];
  const attempts: Array<CallbackAttemptView & { delivery_id: string; started_at: Date; webhook_timestamp: string }> = await manager.query(
    `SELECT delivery_id, attempt_number, started_at, instance_id, webhook_timestamp, outcome, response_status, latency_ms, response_excerpt, error
       FROM callback_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt_number`,
    [deliveries.map((row) => row.delivery_id)],
  );
  return deliveries.map((row) => ({
    delivery_id: row.delivery_id,
    merchant_id: row.merchant_id,
    callback_type: row.callback_type as CallbackDeliveryView['callback_type'],
    subject: { kind: row.subject_kind, id: row.subject_id },
    source_event: { id: row.source_event_id, type: row.source_event_type, topic: row.source_topic },
    state_version: row.state_version,
    // Empty while the delivery awaits the merchant's first default callback URL.
    target_url: row.target_url === '' ? null : row.target_url,
    status: row.status as CallbackDeliveryView['status'],
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    delivered_at: row.delivered_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    body: JSON.parse(row.body) as CallbackDeliveryView['body'],
    attempts: attempts
      .filter((attempt) => attempt.delivery_id === row.delivery_id)
      .map(({ delivery_id: _unused, ...attempt }) => ({
        ...attempt,
        started_at: attempt.started_at.toISOString(),
        webhook_timestamp: Number(attempt.webhook_timestamp),
      })),
  }));
}

/** Merchants' delivery-log cursors; the tag keeps another list's cursor out. */
const DELIVERY_LOG_CURSOR = new PositionCursor('whd');

interface MerchantDeliveryRow {
  delivery_id: string;
  source_event_id: string;
  callback_type: MerchantWebhookDeliveryView['event_type'];
  order_id: string | null;
  target_url: string;
  status: MerchantWebhookDeliveryView['status'];
  attempt_count: number;
  next_attempt_at: Date | null;
  created_at: Date;
  list_position: string;
  last_attempt_at: Date | null;
  last_response_code: number | null;
}

/** The row and its latest attempt: one index probe per listed delivery. */
const MERCHANT_DELIVERY_SELECT = `SELECT d.delivery_id, d.source_event_id, d.callback_type, d.order_id, d.target_url, d.status, d.attempt_count, d.next_attempt_at,
                                         d.created_at, d.list_position, latest.started_at AS last_attempt_at, latest.response_status AS last_response_code
                                    FROM callback_deliveries d
                                    LEFT JOIN LATERAL (SELECT a.started_at, a.response_status FROM callback_attempts a WHERE a.delivery_id = d.delivery_id
                                                        ORDER BY a.attempt_number DESC LIMIT 1) latest ON true`;

function merchantDeliveryOf(row: MerchantDeliveryRow): MerchantWebhookDeliveryView {
  return {
    delivery_id: row.delivery_id,
    event_id: row.source_event_id,
    event_type: row.callback_type,
    order_id: row.order_id,
    url: row.target_url === '' ? null : row.target_url,
    status: row.status,
    attempt_count: row.attempt_count,
    last_attempt_at: row.last_attempt_at?.toISOString() ?? null,
    last_response_code: row.last_response_code,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

/**
 * One merchant's delivery log, newest first, by keyset on (merchant_id, list_position): a page
 * reads the index from the cursor down, never the merchant's whole history.
 */
export async function listMerchantDeliveries(
  manager: EntityManager,
  merchantId: string,
  query: WebhookDeliveriesQueryDto,
): Promise<MerchantWebhookDeliveryPage> {
  const { limit, cursor, createdFrom, createdTo } = pageFilterOf(query);
  const where = new SqlConditions().add('d.merchant_id = ?', merchantId);
  if (query.order_id !== undefined) where.add('d.order_id = ?', query.order_id);
  if (query.status !== undefined) where.add('d.status = ?', query.status);
  if (query.event_type !== undefined) where.add('d.callback_type = ?', query.event_type);
  if (createdFrom) where.add('d.created_at >= ?', createdFrom);
  if (createdTo) where.add('d.created_at <= ?', createdTo);
  const page = await fetchNewestFirstPage<MerchantDeliveryRow>(manager, {
    select: MERCHANT_DELIVERY_SELECT,
    where,
    positionColumn: 'd.list_position',
    positionOf: (row) => String(row.list_position),
    cursor: DELIVERY_LOG_CURSOR,
    after: cursor,
    limit,
  });
  return { data: page.rows.map(merchantDeliveryOf), has_more: page.hasMore, next_cursor: page.nextCursor };
}

/** One delivery of this merchant with every attempt; null for another merchant's, like a missing one. */
export async function findMerchantDelivery(manager: EntityManager, merchantId: string, deliveryId: string): Promise<MerchantWebhookDeliveryDetailView | null> {
  const [row] = (await manager.query(`${MERCHANT_DELIVERY_SELECT} WHERE d.delivery_id = $1 AND d.merchant_id = $2`, [
    deliveryId,
    merchantId,
  ])) as MerchantDeliveryRow[];
  if (!row) return null;
  const attempts: Array<{
    attempt_number: number;
    started_at: Date;
    response_status: number | null;
    latency_ms: number | null;
    outcome: MerchantWebhookAttemptView['outcome'];
  }> = await manager.query(
    `SELECT attempt_number, started_at, response_status, latency_ms, outcome FROM callback_attempts WHERE delivery_id = $1 ORDER BY attempt_number`,
    [deliveryId],
  );
  return {
    ...merchantDeliveryOf(row),
    attempts: attempts.map((attempt) => ({
      attempt_number: attempt.attempt_number,
      started_at: attempt.started_at.toISOString(),
      response_code: attempt.response_status,
      duration_ms: attempt.latency_ms,
      outcome: attempt.outcome,
    })),
  };
}

/**
 * A merchant's redelivery: due now, with the same webhook-id and body. Refused while its
 * endpoint is disabled (the merchant re-enables the endpoint instead, which sends it).
 */
export async function scheduleMerchantRedelivery(
  manager: EntityManager,
  merchantId: string,
  deliveryId: string,
  now: Date,
): Promise<'scheduled' | 'not_found' | 'endpoint_disabled'> {
  const [found] = (await manager.query(`SELECT target_url FROM callback_deliveries WHERE delivery_id = $1 AND merchant_id = $2 FOR UPDATE`, [
    deliveryId,
    merchantId,
  ])) as Array<{ target_url: string }>;
  if (!found) return 'not_found';
  if (found.target_url !== '' && (await isEndpointDisabled(manager, merchantId, found.target_url))) return 'endpoint_disabled';
  await scheduleRedelivery(manager, deliveryId, now);
  return 'scheduled';
}
