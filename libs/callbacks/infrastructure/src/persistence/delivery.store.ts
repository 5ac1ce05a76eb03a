// The delivery queue: deliveries recorded, claimed fairly, attempted, released and scheduled again.
import { storableAnswerText, type CallbackIntent } from '@mp/callbacks-domain';
import { executeOrDefer } from '@mp/shared-messaging';
import { countAfterCommit } from '@mp/shared-metrics';
import type { EntityManager } from 'typeorm';
import { CALLBACK_ATTEMPTS_METRIC } from '../callback-metrics';
import { returning } from './query-rows';

export interface NewDelivery {
  deliveryId: string;
  sourceEvent: { id: string; type: string; topic: string };
  intent: CallbackIntent;
  targetUrl: string;
  body: string;
}

/**
 * Records deliveries before their first attempt, for a batch of events in one statement, in the
 * order given. Returns how many are new: an event (or the same fact under another envelope id)
 * that already has one adds nothing, so a redelivered event sends nothing twice. A delivery to a
 * disabled endpoint is parked straight away, and one with no target yet (an empty `targetUrl`: the
 * merchant has no default callback URL) waits for one (`awaiting_url`, resumeAwaitingUrl).
 */
export async function insertDeliveries(manager: EntityManager, deliveries: readonly NewDelivery[], now: Date): Promise<number> {
  if (deliveries.length === 0) return 0;
  const column = <T>(pick: (delivery: NewDelivery) => T) => deliveries.map(pick);
  const rows: unknown[] = await manager.query(
    `INSERT INTO callback_deliveries (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type,
                                      state_version, target_url, body, status, next_attempt_at, created_at)
     SELECT given.delivery_id, given.source_event_id, given.source_event_type, given.source_topic, given.merchant_id, given.subject_kind, given.subject_id,
            given.callback_type, given.state_version, given.target_url, given.body,
            CASE WHEN given.target_url = '' THEN 'awaiting_url' WHEN disabled.url IS NULL THEN 'pending' ELSE 'endpoint_disabled' END,
            CASE WHEN given.target_url <> '' AND disabled.url IS NULL THEN $12::timestamptz END, $12::timestamptz
       FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::text[], $11::text[]) WITH ORDINALITY
            AS given (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type, state_version, target_url, body, position)
       LEFT JOIN callback_disabled_endpoints disabled ON disabled.merchant_id = given.merchant_id AND disabled.url = given.target_url
      ORDER BY given.position
     ON CONFLICT DO NOTHING
     RETURNING delivery_id`,
    [
      column((delivery) => delivery.deliveryId),
      column((delivery) => delivery.sourceEvent.id),
      column((delivery) => delivery.sourceEvent.type),
      column((delivery) => delivery.sourceEvent.topic),
      column((delivery) => delivery.intent.merchantId),
      column((delivery) => delivery.intent.subject.kind),
      column((delivery) => delivery.intent.subject.id),
      column((delivery) => delivery.intent.callbackType),
      column((delivery) => delivery.intent.stateVersion),
      column((delivery) => delivery.targetUrl),
      column((delivery) => delivery.body),
      now,
    ],
  );
  return rows.length;
}

export interface ClaimedDelivery {
  deliveryId: string;
  merchantId: string;
  targetUrl: string;
  /** scheme://host[:port] of targetUrl: what concurrency and the circuit breaker are counted by. */
  targetOrigin: string;
  body: string;
  attemptNumber: number;
}

/** Origins with pending rows, by a loose index scan: one index probe per origin, however many rows each has. */
const PENDING_ORIGINS = `origins (origin) AS (
       (SELECT target_origin FROM callback_deliveries WHERE status = 'pending' ORDER BY target_origin LIMIT 1)
       UNION ALL
       SELECT (SELECT d.target_origin FROM callback_deliveries d WHERE d.status = 'pending' AND d.target_origin > o.origin ORDER BY d.target_origin LIMIT 1)
         FROM origins o WHERE o.origin IS NOT NULL
     )`;

/**
 * Whether any delivery is due and not leased: one plain read, no transaction and no lock, so a
 * poll or nudge that finds nothing to claim (most of them) costs one statement instead of a
 * claim's four. A row that becomes due just after it is found by the next poll or nudge, as it
 * would be after a claim that found nothing.
 */
export async function hasDueDeliveries(manager: EntityManager, now: Date): Promise<boolean> {
  const [row] = (await manager.query(
    `WITH RECURSIVE ${PENDING_ORIGINS}
     SELECT EXISTS (SELECT 1 FROM origins o
                     WHERE o.origin IS NOT NULL
                       AND EXISTS (SELECT 1 FROM callback_deliveries d
                                    WHERE d.target_origin = o.origin AND d.status = 'pending' AND d.next_attempt_at <= $1
                                      AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $1))) AS due`,
    [now],
  )) as Array<{ due: boolean }>;
  return row.due;
}

/** Any fixed key: every replica's claim takes this one transaction-scoped advisory lock. */
const CLAIM_LOCK_KEY = 7_361_004_000;

/**
 * Claims due deliveries for one attempt each, in one transaction, fairly between destination
 * origins (scheme + host + port):
 * - each origin gets at most `perOriginConcurrency` attempts in flight across every replica
 *   (counted from the leases in the table), one while its circuit is half-open, none while open;
 * - each origin's oldest due rows are taken, so thousands of retries to one dead endpoint only
 *   ever fill that endpoint's slots;
 * - the batch prefers first attempts, then the longest waiting, so a new callback is never
 *   queued behind another endpoint's retries.
 * Claims are serialised between replicas by an advisory lock (a claim takes milliseconds), which
 * keeps the per-origin counts and the single half-open probe exact; `FOR UPDATE SKIP LOCKED`
 * still keeps a row an operator is redelivering out of the batch. A lease lets a replica that
 * dies mid-attempt leave the row to be claimed again once it runs out (at least once: the
 * receiver may get that attempt twice, with the same webhook-id).
 */
export async function claimDueDeliveries(
  manager: EntityManager,
  options: { owner: string; now: Date; leaseMs: number; limit: number; perOriginConcurrency: number },
): Promise<ClaimedDelivery[]> {
  await manager.query(`SELECT pg_advisory_xact_lock($1)`, [CLAIM_LOCK_KEY]);
  // One statement after the lock (its snapshot is taken after the lock, so the lease counts are
  // exact): origins with pending rows, their free slots, each one's oldest due rows within those slots, the
  // lease on them and their in-flight attempt rows. The locking subquery re-reads each candidate
  // as it is now, so a row an operator is redelivering (locked) or another writer changed since
  // the snapshot is left out or judged as it is.
  const claimed = await returning<{ delivery_id: string; merchant_id: string; target_url: string; target_origin: string; body: string; attempt_count: number }>(
    manager,
    `WITH RECURSIVE ${PENDING_ORIGINS}, slots AS (
       SELECT o.origin,
              CASE WHEN c.open_until IS NULL THEN $3::int WHEN c.open_until > $1 THEN 0 ELSE 1 END
              - (SELECT count(*)::int FROM callback_deliveries l WHERE l.target_origin = o.origin AND l.lease_expires_at > $1) AS free
         FROM origins o LEFT JOIN callback_origin_circuits c ON c.origin = o.origin
        WHERE o.origin IS NOT NULL
     ), candidates AS (
       SELECT due.delivery_id
         FROM slots s
        CROSS JOIN LATERAL (
          SELECT d.delivery_id, d.attempt_count, d.next_attempt_at FROM callback_deliveries d
           WHERE d.target_origin = s.origin AND d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $1)
             AND NOT EXISTS (SELECT 1 FROM callback_disabled_endpoints e WHERE e.merchant_id = d.merchant_id AND e.url = d.target_url)
           ORDER BY d.next_attempt_at
           LIMIT GREATEST(s.free, 0)
        ) due
        ORDER BY due.attempt_count > 0, due.next_attempt_at
        LIMIT $2
     ), claimed AS (
       UPDATE callback_deliveries
          SET lease_owner = $4, lease_expires_at = $1::timestamptz + make_interval(secs => $5::double precision / 1000), attempt_count = attempt_count + 1
        WHERE delivery_id IN (SELECT delivery_id FROM callback_deliveries
                               WHERE delivery_id IN (SELECT delivery_id FROM candidates) AND status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= $1)
                               FOR UPDATE SKIP LOCKED)
        RETURNING delivery_id, merchant_id, target_url, target_origin, body, attempt_count
     ), attempts AS (
       INSERT INTO callback_attempts (delivery_id, attempt_number, started_at, instance_id, webhook_timestamp, outcome)
       SELECT delivery_id, attempt_count, $1, $4, $6, 'in_flight' FROM claimed
     )
     SELECT delivery_id, merchant_id, target_url, target_origin, body, attempt_count FROM claimed`,
    [options.now, options.limit, options.perOriginConcurrency, options.owner, options.leaseMs, Math.floor(options.now.getTime() / 1_000)],
  );
  return claimed.map((row) => ({
    deliveryId: row.delivery_id,
    merchantId: row.merchant_id,
    targetUrl: row.target_url,
    targetOrigin: row.target_origin,
    body: row.body,
    attemptNumber: row.attempt_count,
  }));
}

export interface AttemptRecord {
  outcome: string;
  responseStatus: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
  webhookTimestamp: number;
}

/**
 * Completes an attempt and moves the delivery on: done, retry at `nextAttemptAt`, failed, or
 * parked. What the receiver sent is stored sanitised and bounded (storableAnswerText): a write
 * that failed on it would leave the delivery leased and send it again, forever. Its writes, like
 * recordOriginHealth's and a healthy recordEndpointHealth's, go through executeOrDefer: in the
 * worker's transactionInFewTrips an attempt's whole record is one statement (each touches its own
 * row: the attempt, the delivery, the origin, the endpoint's failure run).
 */
export async function recordAttempt(
  manager: EntityManager,
  delivery: ClaimedDelivery,
  attempt: AttemptRecord,
  next: { status: 'succeeded'; at: Date } | { status: 'pending'; at: Date } | { status: 'failed' } | { status: 'endpoint_disabled' },
): Promise<void> {
  await executeOrDefer(manager, {
    sql: `UPDATE callback_attempts SET outcome = $3, response_status = $4, latency_ms = $5, response_excerpt = $6, error = $7, webhook_timestamp = $8
           WHERE delivery_id = $1 AND attempt_number = $2`,
    params: [
      delivery.deliveryId,
      delivery.attemptNumber,
      attempt.outcome,
      attempt.responseStatus,
      attempt.latencyMs,
      storableAnswerText(attempt.excerpt),
      storableAnswerText(attempt.error),
      attempt.webhookTimestamp,
    ],
  });
  countAfterCommit(manager, CALLBACK_ATTEMPTS_METRIC, { outcome: attempt.outcome });
  // A late answer never undoes a success another replica recorded after this lease ran out. A
  // redelivery asked for while the attempt was in flight (scheduleRedelivery moved the row's
  // next_attempt_at past the attempt's start) is kept: the delivery stays due at that time
  // instead of the attempt's outcome overwriting the request.
  await executeOrDefer(manager, {
    sql: `UPDATE callback_deliveries d
             SET status = CASE WHEN ($2 = 'pending' OR asked.redelivery) AND asked.parked THEN 'endpoint_disabled'
                               WHEN asked.redelivery THEN 'pending' ELSE $2 END,
                 next_attempt_at = CASE WHEN asked.redelivery THEN d.next_attempt_at ELSE $3 END,
                 delivered_at = COALESCE(delivered_at, $4), lease_owner = NULL, lease_expires_at = NULL
            FROM (SELECT coalesce(x.next_attempt_at > a.started_at, false) AS redelivery,
                         EXISTS (SELECT 1 FROM callback_disabled_endpoints e WHERE e.merchant_id = x.merchant_id AND e.url = x.target_url) AS parked
                    FROM callback_deliveries x JOIN callback_attempts a ON a.delivery_id = x.delivery_id AND a.attempt_number = $5
                   WHERE x.delivery_id = $1) AS asked
           WHERE d.delivery_id = $1 AND d.status <> 'succeeded'`,
    params: [
      delivery.deliveryId,
      next.status,
      next.status === 'pending' ? next.at : null,
      next.status === 'succeeded' ? next.at : null,
      delivery.attemptNumber,
    ],
  });
}

/** Manual redelivery: due now, whatever its state; the same webhook-id and body. */
export async function scheduleRedelivery(manager: EntityManager, deliveryId: string, now: Date): Promise<boolean> {
  const rows = await returning(
    manager,
    `UPDATE callback_deliveries d
        SET status = CASE WHEN disabled THEN 'endpoint_disabled' ELSE 'pending' END, next_attempt_at = CASE WHEN disabled THEN NULL ELSE $2::timestamptz END
       FROM (SELECT EXISTS (SELECT 1 FROM callback_disabled_endpoints e JOIN callback_deliveries x ON e.merchant_id = x.merchant_id AND e.url = x.target_url
                             WHERE x.delivery_id = $1) AS disabled) AS endpoint
      WHERE d.delivery_id = $1 AND d.status <> 'awaiting_url'
      RETURNING d.delivery_id`,
    [deliveryId, now],
  );
  if (rows.length === 1) return true;
  // One still awaiting its merchant's first URL has nowhere to go yet: it stays as it is, and goes
  // when the URL is set (resumeAwaitingUrl). It exists, so this is no "not found".
  const awaiting: unknown[] = await manager.query(`SELECT 1 FROM callback_deliveries WHERE delivery_id = $1 AND status = 'awaiting_url'`, [deliveryId]);
  return awaiting.length === 1;
}

/** Gives a claim back without counting it as an attempt (nothing was sent). */
export async function releaseClaim(manager: EntityManager, delivery: ClaimedDelivery, retryAt: Date): Promise<void> {
  await manager.query(`DELETE FROM callback_attempts WHERE delivery_id = $1 AND attempt_number = $2`, [delivery.deliveryId, delivery.attemptNumber]);
  await manager.query(
    `UPDATE callback_deliveries SET attempt_count = attempt_count - 1, next_attempt_at = $2, lease_owner = NULL, lease_expires_at = NULL WHERE delivery_id = $1 AND lease_owner IS NOT NULL`,
    [delivery.deliveryId, retryAt],
  );
}

/**
 * The merchant set its default callback URL: its outcomes kept `awaiting_url` go there now, in
 * the order they were recorded (parked instead when that URL is a disabled endpoint). How many.
 */
export async function resumeAwaitingUrl(manager: EntityManager, merchantId: string, url: string, now: Date): Promise<number> {
  const rows = await returning(
    manager,
    `UPDATE callback_deliveries delivery
        SET target_url = $2,
            status = CASE WHEN disabled.url IS NULL THEN 'pending' ELSE 'endpoint_disabled' END,
            next_attempt_at = CASE WHEN disabled.url IS NULL THEN $3::timestamptz END
       FROM (SELECT $1::text AS merchant_id) AS merchant
       LEFT JOIN callback_disabled_endpoints disabled ON disabled.merchant_id = merchant.merchant_id AND disabled.url = $2
      WHERE delivery.merchant_id = $1 AND delivery.status = 'awaiting_url'
      RETURNING delivery.delivery_id`,
    [merchantId, url, now],
  );
  return rows.length;
}
