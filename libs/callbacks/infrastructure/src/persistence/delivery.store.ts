// The delivery queue: deliveries recorded, claimed fairly, attempted, released and scheduled again.
import { callbackDeliveryStreamId, deliveryAfterAttempt, storableAnswerText, type CallbackIntent, type DeliveryStatus } from '@mp/callbacks-domain';
import { executeOrDefer, StreamVersionConflictError, violatedConstraint, withOneWriteStatement } from '@mp/shared-messaging';
import { countAfterCommit } from '@mp/shared-metrics';
import type { EntityManager } from 'typeorm';
import { CALLBACK_ATTEMPTS_METRIC } from '../callback-metrics';
import { appendDeliveryChanges, inTransaction, instant, type DeliveryChange } from './delivery-events';
import { returning } from './query-rows';

export interface NewDelivery {
  deliveryId: string;
  sourceEvent: { id: string; type: string; topic: string };
  intent: CallbackIntent;
  targetUrl: string;
  body: string;
}

/**
 * Records deliveries before their first attempt, for a batch of events, in the order given.
 * Returns how many are new: an event (or the same fact under another envelope id) that already
 * has one adds nothing, so a redelivered event sends nothing twice. A delivery to a disabled
 * endpoint is parked straight away, and one with no target yet (an empty `targetUrl`: the
 * merchant has no default callback URL) waits for one (`awaiting_url`, resumeAwaitingUrl).
 *
 * One plain read finds what is recorded already and which endpoints are disabled; the new rows
 * and each one's CallbackDeliveryRecorded event (the row as inserted) are then one statement. A
 * delivery another writer recorded in between makes that statement fail whole, as a
 * StreamVersionConflictError: the intake tries again, and the read then finds it.
 */
export async function insertDeliveries(manager: EntityManager, deliveries: readonly NewDelivery[], now: Date): Promise<number> {
  return inTransaction(manager, (transaction) => insertDeliveriesInTransaction(transaction, deliveries, now));
}

/** A delivery's three unique keys (callback_deliveries' primary key and unique constraints). */
const keysOf = (delivery: NewDelivery): string[] => [
  `id:${delivery.deliveryId}`,
  `event:${delivery.sourceEvent.id.toLowerCase()}`,
  `fact:${JSON.stringify([delivery.intent.merchantId, delivery.intent.subject.kind, delivery.intent.subject.id, delivery.intent.callbackType, delivery.intent.stateVersion])}`,
];

async function insertDeliveriesInTransaction(manager: EntityManager, deliveries: readonly NewDelivery[], now: Date): Promise<number> {
  if (deliveries.length === 0) return 0;
  const column = <T>(pick: (delivery: NewDelivery) => T) => deliveries.map(pick);
  const found = await returning<{ recorded: boolean; disabled: boolean }>(
    manager,
    `SELECT EXISTS (SELECT 1 FROM callback_deliveries d
                     WHERE d.delivery_id = given.delivery_id OR d.source_event_id = given.source_event_id
                        OR (d.merchant_id, d.subject_kind, d.subject_id, d.callback_type, d.state_version)
                         = (given.merchant_id, given.subject_kind, given.subject_id, given.callback_type, given.state_version)) AS recorded,
            EXISTS (SELECT 1 FROM callback_disabled_endpoints e WHERE e.merchant_id = given.merchant_id AND e.url = given.target_url) AS disabled
       FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[]) WITH ORDINALITY
            AS given (delivery_id, source_event_id, merchant_id, subject_kind, subject_id, callback_type, state_version, target_url, position)
      ORDER BY given.position`,
    [
      column((delivery) => delivery.deliveryId),
      column((delivery) => delivery.sourceEvent.id),
      column((delivery) => delivery.intent.merchantId),
      column((delivery) => delivery.intent.subject.kind),
      column((delivery) => delivery.intent.subject.id),
      column((delivery) => delivery.intent.callbackType),
      column((delivery) => delivery.intent.stateVersion),
      column((delivery) => delivery.targetUrl),
    ],
  );
  // The first of the batch with each key wins, as the ordered insert with ON CONFLICT DO NOTHING did.
  const taken = new Set<string>();
  const fresh = deliveries.flatMap((delivery, index) => {
    const keys = keysOf(delivery);
    if (found[index].recorded || keys.some((key) => taken.has(key))) return [];
    keys.forEach((key) => taken.add(key));
    const status: DeliveryStatus = delivery.targetUrl === '' ? 'awaiting_url' : found[index].disabled ? 'endpoint_disabled' : 'pending';
    return [{ delivery, status, nextAttemptAt: status === 'pending' ? now : null }];
  });
  if (fresh.length === 0) return 0;
  const freshColumn = <T>(pick: (row: (typeof fresh)[number]) => T) => fresh.map(pick);
  await withOneWriteStatement(manager, async () => {
    await executeOrDefer(manager, {
      sql: `INSERT INTO callback_deliveries (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type,
                                             state_version, target_url, body, status, next_attempt_at, created_at, stream_version)
            SELECT given.delivery_id, given.source_event_id, given.source_event_type, given.source_topic, given.merchant_id, given.subject_kind, given.subject_id,
                   given.callback_type, given.state_version, given.target_url, given.body, given.status, given.next_attempt_at, $14::timestamptz, 1
              FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::text[], $11::text[],
                          $12::text[], $13::timestamptz[]) WITH ORDINALITY
                   AS given (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type, state_version,
                             target_url, body, status, next_attempt_at, position)
             ORDER BY given.position`,
      params: [
        freshColumn(({ delivery }) => delivery.deliveryId),
        freshColumn(({ delivery }) => delivery.sourceEvent.id),
        freshColumn(({ delivery }) => delivery.sourceEvent.type),
        freshColumn(({ delivery }) => delivery.sourceEvent.topic),
        freshColumn(({ delivery }) => delivery.intent.merchantId),
        freshColumn(({ delivery }) => delivery.intent.subject.kind),
        freshColumn(({ delivery }) => delivery.intent.subject.id),
        freshColumn(({ delivery }) => delivery.intent.callbackType),
        freshColumn(({ delivery }) => delivery.intent.stateVersion),
        freshColumn(({ delivery }) => delivery.targetUrl),
        freshColumn(({ delivery }) => delivery.body),
        freshColumn(({ status }) => status),
        freshColumn(({ nextAttemptAt }) => nextAttemptAt),
        now,
      ],
      // Recorded by another writer since the read: nothing of the batch is written, and the intake tries again.
      translateError: (error) =>
        violatedConstraint(error)?.startsWith('callback_deliveries_')
          ? new StreamVersionConflictError(callbackDeliveryStreamId(fresh[0].delivery.deliveryId), 0)
          : undefined,
    });
    await appendDeliveryChanges(
      manager,
      fresh.map(({ delivery, status, nextAttemptAt }) => ({
        deliveryId: delivery.deliveryId,
        version: 1,
        event: {
          type: 'CallbackDeliveryRecorded',
          data: {
            deliveryId: delivery.deliveryId,
            sourceEventId: delivery.sourceEvent.id,
            sourceEventType: delivery.sourceEvent.type,
            sourceTopic: delivery.sourceEvent.topic,
            merchantId: delivery.intent.merchantId,
            subjectKind: delivery.intent.subject.kind,
            subjectId: delivery.intent.subject.id,
            callbackType: delivery.intent.callbackType,
            stateVersion: delivery.intent.stateVersion,
            targetUrl: delivery.targetUrl,
            body: delivery.body,
            status,
            nextAttemptAt: instant(nextAttemptAt),
            createdAt: now.toISOString(),
          },
        },
      })),
      now,
    );
  });
  return fresh.length;
}

export interface ClaimedDelivery {
  deliveryId: string;
  merchantId: string;
  targetUrl: string;
  /** scheme://host[:port] of targetUrl: what concurrency and the circuit breaker are counted by. */
  targetOrigin: string;
  body: string;
  attemptNumber: number;
  /**
   * The row as the claim left it: what recordAttempt decides from while the row stays at this
   * version (every other change to a claimed row bumps it), so the common attempt needs no read.
   */
  claimedAs?: AttemptBasis;
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

const webhookTimestampOf = (now: Date): number => Math.floor(now.getTime() / 1_000);

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
  const claimed = await returning<{
    delivery_id: string;
    merchant_id: string;
    target_url: string;
    target_origin: string;
    body: string;
    attempt_count: number;
    stream_version: number;
    status: DeliveryStatus;
    next_attempt_at: Date | null;
    delivered_at: Date | null;
  }>(
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
          SET lease_owner = $4, lease_expires_at = $1::timestamptz + make_interval(secs => $5::double precision / 1000), attempt_count = attempt_count + 1,
              stream_version = stream_version + 1
        WHERE delivery_id IN (SELECT delivery_id FROM callback_deliveries
                               WHERE delivery_id IN (SELECT delivery_id FROM candidates) AND status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= $1)
                               FOR UPDATE SKIP LOCKED)
        RETURNING delivery_id, merchant_id, target_url, target_origin, body, attempt_count, stream_version, status, next_attempt_at, delivered_at
     ), attempts AS (
       INSERT INTO callback_attempts (delivery_id, attempt_number, started_at, instance_id, webhook_timestamp, outcome)
       SELECT delivery_id, attempt_count, $1, $4, $6, 'in_flight' FROM claimed
     )
     SELECT delivery_id, merchant_id, target_url, target_origin, body, attempt_count, stream_version, status, next_attempt_at, delivered_at FROM claimed`,
    [options.now, options.limit, options.perOriginConcurrency, options.owner, options.leaseMs, webhookTimestampOf(options.now)],
  );
  await appendDeliveryChanges(
    manager,
    claimed.map((row) => ({
      deliveryId: row.delivery_id,
      version: row.stream_version,
      event: {
        type: 'CallbackAttemptStarted',
        data: {
          attemptNumber: row.attempt_count,
          startedAt: options.now.toISOString(),
          instanceId: options.owner,
          webhookTimestamp: webhookTimestampOf(options.now),
        },
      },
    })),
    options.now,
  );
  return claimed.map((row) => ({
    deliveryId: row.delivery_id,
    merchantId: row.merchant_id,
    targetUrl: row.target_url,
    targetOrigin: row.target_origin,
    body: row.body,
    attemptNumber: row.attempt_count,
    // Claimed only while its endpoint is not disabled; disabling it parks the row, a new version.
    claimedAs: {
      status: row.status,
      nextAttemptAt: row.next_attempt_at,
      deliveredAt: row.delivered_at,
      attemptStartedAt: options.now,
      endpointDisabled: false,
      streamVersion: row.stream_version,
    },
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

/** What recordAttempt decides the delivery's next state from: its row and the attempt's start, read without a lock. */
export interface AttemptBasis {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  attemptStartedAt: Date;
  endpointDisabled: boolean;
  streamVersion: number;
}

/**
 * Reads what recordAttempt needs: a plain read, so in the worker's transactionInFewTrips it runs
 * before anything is written and costs no BEGIN (read it first there). The worker reads only when
 * the row moved on since its claim (ClaimedDelivery.claimedAs).
 */
export async function readAttemptBasis(manager: EntityManager, delivery: ClaimedDelivery): Promise<AttemptBasis> {
  const [row] = await returning<{
    status: DeliveryStatus;
    next_attempt_at: Date | null;
    delivered_at: Date | null;
    started_at: Date;
    endpoint_disabled: boolean;
    stream_version: number;
  }>(
    manager,
    `SELECT d.status, d.next_attempt_at, d.delivered_at, a.started_at, d.stream_version,
            EXISTS (SELECT 1 FROM callback_disabled_endpoints e WHERE e.merchant_id = d.merchant_id AND e.url = d.target_url) AS endpoint_disabled
       FROM callback_deliveries d JOIN callback_attempts a ON a.delivery_id = d.delivery_id AND a.attempt_number = $2
      WHERE d.delivery_id = $1`,
    [delivery.deliveryId, delivery.attemptNumber],
  );
  if (!row) throw new Error(`callback ${delivery.deliveryId} has no attempt ${delivery.attemptNumber} to record`);
  return {
    status: row.status,
    nextAttemptAt: row.next_attempt_at,
    deliveredAt: row.delivered_at,
    attemptStartedAt: row.started_at,
    endpointDisabled: row.endpoint_disabled,
    streamVersion: row.stream_version,
  };
}

/**
 * Completes an attempt and moves the delivery on: done, retry at `nextAttemptAt`, failed, or
 * parked. What the receiver sent is stored sanitised and bounded (storableAnswerText): a write
 * that failed on it would leave the delivery leased and send it again, forever. The delivery's
 * next state is decided from `basis` (deliveryAfterAttempt) and written, with the attempt and its
 * CallbackAttemptFinished event, only if the row is still at the version read: otherwise
 * StreamVersionConflictError, and the caller records again from a fresh read. Its writes, like
 * recordOriginHealth's and a healthy recordEndpointHealth's, go through executeOrDefer: in the
 * worker's transactionInFewTrips an attempt's whole record is one statement (each touches its own
 * row: the attempt, the delivery and its event, the origin, the endpoint's failure run), decided
 * from the row as claimed (`claimedAs`), read again only when that statement found it moved on.
 */
export async function recordAttempt(
  manager: EntityManager,
  delivery: ClaimedDelivery,
  attempt: AttemptRecord,
  next: { status: 'succeeded'; at: Date } | { status: 'pending'; at: Date } | { status: 'failed' } | { status: 'endpoint_disabled' },
  basis?: AttemptBasis,
): Promise<void> {
  // Outside a transaction its writes would be three statements of their own: it takes one.
  if (!manager.queryRunner?.isTransactionActive) return manager.transaction((transaction) => recordAttempt(transaction, delivery, attempt, next, basis));
  const read = basis ?? (await readAttemptBasis(manager, delivery));
  const excerpt = storableAnswerText(attempt.excerpt);
  const error = storableAnswerText(attempt.error);
  countAfterCommit(manager, CALLBACK_ATTEMPTS_METRIC, { outcome: attempt.outcome });
  // A late answer never undoes a success (the row keeps its lease as it is); a redelivery asked
  // for while the attempt was in flight is kept (deliveryAfterAttempt).
  const after = deliveryAfterAttempt(read, next);
  const version = read.streamVersion + 1;
  await executeOrDefer(manager, {
    sql:
      read.status === 'succeeded'
        ? `UPDATE callback_deliveries SET stream_version = $2 WHERE delivery_id = $1 AND stream_version = $2 - 1 RETURNING 1`
        : `UPDATE callback_deliveries SET status = $3, next_attempt_at = $4, delivered_at = $5, lease_owner = NULL, lease_expires_at = NULL, stream_version = $2
            WHERE delivery_id = $1 AND stream_version = $2 - 1 RETURNING 1`,
    params: read.status === 'succeeded' ? [delivery.deliveryId, version] : [delivery.deliveryId, version, after.status, after.nextAttemptAt, after.deliveredAt],
    check: (updated) => {
      if (updated !== 1) throw new StreamVersionConflictError(callbackDeliveryStreamId(delivery.deliveryId), read.streamVersion);
    },
  });
  // The delivery's row before its attempt's, in the order the claim and the rebuild's switch lock the tables.
  await executeOrDefer(manager, {
    sql: `UPDATE callback_attempts SET outcome = $3, response_status = $4, latency_ms = $5, response_excerpt = $6, error = $7, webhook_timestamp = $8
           WHERE delivery_id = $1 AND attempt_number = $2`,
    params: [delivery.deliveryId, delivery.attemptNumber, attempt.outcome, attempt.responseStatus, attempt.latencyMs, excerpt, error, attempt.webhookTimestamp],
  });
  const change: DeliveryChange = {
    deliveryId: delivery.deliveryId,
    version,
    event: {
      type: 'CallbackAttemptFinished',
      data: {
        attemptNumber: delivery.attemptNumber,
        outcome: attempt.outcome,
        responseStatus: attempt.responseStatus,
        latencyMs: attempt.latencyMs,
        responseExcerpt: excerpt,
        error,
        webhookTimestamp: attempt.webhookTimestamp,
        status: after.status,
        nextAttemptAt: instant(after.nextAttemptAt),
        deliveredAt: instant(after.deliveredAt),
      },
    },
  };
  await appendDeliveryChanges(manager, [change], next.status === 'succeeded' || next.status === 'pending' ? next.at : new Date());
}

/** Manual redelivery: due now, whatever its state; the same webhook-id and body. */
export async function scheduleRedelivery(manager: EntityManager, deliveryId: string, now: Date): Promise<boolean> {
  return inTransaction(manager, (transaction) => scheduleRedeliveryInTransaction(transaction, deliveryId, now));
}

async function scheduleRedeliveryInTransaction(manager: EntityManager, deliveryId: string, now: Date): Promise<boolean> {
  const rows = await returning<ChangedPosition>(
    manager,
    `UPDATE callback_deliveries d
        SET status = CASE WHEN disabled THEN 'endpoint_disabled' ELSE 'pending' END, next_attempt_at = CASE WHEN disabled THEN NULL ELSE $2::timestamptz END,
            stream_version = d.stream_version + 1
       FROM (SELECT EXISTS (SELECT 1 FROM callback_disabled_endpoints e JOIN callback_deliveries x ON e.merchant_id = x.merchant_id AND e.url = x.target_url
                             WHERE x.delivery_id = $1) AS disabled) AS endpoint
      WHERE d.delivery_id = $1 AND d.status <> 'awaiting_url'
      RETURNING ${CHANGED_POSITION}`,
    [deliveryId, now],
  );
  await appendDeliveryChanges(manager, positionChanges(rows, 'CallbackRedeliveryScheduled'), now);
  if (rows.length === 1) return true;
  // One still awaiting its merchant's first URL has nowhere to go yet: it stays as it is, and goes
  // when the URL is set (resumeAwaitingUrl). It exists, so this is no "not found".
  const awaiting: unknown[] = await manager.query(`SELECT 1 FROM callback_deliveries WHERE delivery_id = $1 AND status = 'awaiting_url'`, [deliveryId]);
  return awaiting.length === 1;
}

/** What a statement that moves deliveries on returns for their events. */
export interface ChangedPosition {
  delivery_id: string;
  stream_version: number;
  status: DeliveryStatus;
  next_attempt_at: Date | null;
}

export const CHANGED_POSITION = 'delivery_id, stream_version, status, next_attempt_at';

/** The events of deliveries moved to a new status and due time. */
export function positionChanges(
  rows: readonly ChangedPosition[],
  type: 'CallbackRedeliveryScheduled' | 'CallbackParked' | 'CallbackUnparked',
): DeliveryChange[] {
  return rows.map((row) => ({
    deliveryId: row.delivery_id,
    version: row.stream_version,
    event: { type, data: { status: row.status, nextAttemptAt: instant(row.next_attempt_at) } },
  }));
}

/** Gives a claim back without counting it as an attempt (nothing was sent). */
export async function releaseClaim(manager: EntityManager, delivery: ClaimedDelivery, retryAt: Date): Promise<void> {
  return inTransaction(manager, (transaction) => releaseClaimInTransaction(transaction, delivery, retryAt));
}

async function releaseClaimInTransaction(manager: EntityManager, delivery: ClaimedDelivery, retryAt: Date): Promise<void> {
  const rows = await returning<{ stream_version: number }>(
    manager,
    `UPDATE callback_deliveries SET attempt_count = attempt_count - 1, next_attempt_at = $2, lease_owner = NULL, lease_expires_at = NULL, stream_version = stream_version + 1
      WHERE delivery_id = $1 AND lease_owner IS NOT NULL
      RETURNING stream_version`,
    [delivery.deliveryId, retryAt],
  );
  // After the row, in the order the claim and the rebuild's switch lock the tables. A claim no
  // longer leased (another replica recorded an attempt since) keeps its attempt, in flight, as a
  // crash would: nothing was released, so no event says otherwise.
  if (rows.length > 0)
    await manager.query(`DELETE FROM callback_attempts WHERE delivery_id = $1 AND attempt_number = $2`, [delivery.deliveryId, delivery.attemptNumber]);
  await appendDeliveryChanges(
    manager,
    rows.map((row) => ({
      deliveryId: delivery.deliveryId,
      version: row.stream_version,
      event: { type: 'CallbackClaimReleased', data: { attemptNumber: delivery.attemptNumber, nextAttemptAt: retryAt.toISOString() } },
    })),
    retryAt,
  );
}

/**
 * The merchant set its default callback URL: its outcomes kept `awaiting_url` go there now, in
 * the order they were recorded (parked instead when that URL is a disabled endpoint). How many.
 */
export async function resumeAwaitingUrl(manager: EntityManager, merchantId: string, url: string, now: Date): Promise<number> {
  return inTransaction(manager, (transaction) => resumeAwaitingUrlInTransaction(transaction, merchantId, url, now));
}

async function resumeAwaitingUrlInTransaction(manager: EntityManager, merchantId: string, url: string, now: Date): Promise<number> {
  const rows = await returning<ChangedPosition>(
    manager,
    `UPDATE callback_deliveries delivery
        SET target_url = $2,
            status = CASE WHEN disabled.url IS NULL THEN 'pending' ELSE 'endpoint_disabled' END,
            next_attempt_at = CASE WHEN disabled.url IS NULL THEN $3::timestamptz END,
            stream_version = delivery.stream_version + 1
       FROM (SELECT $1::text AS merchant_id) AS merchant
       LEFT JOIN callback_disabled_endpoints disabled ON disabled.merchant_id = merchant.merchant_id AND disabled.url = $2
      WHERE delivery.merchant_id = $1 AND delivery.status = 'awaiting_url'
      RETURNING delivery.delivery_id, delivery.stream_version, delivery.status, delivery.next_attempt_at`,
    [merchantId, url, now],
  );
  await appendDeliveryChanges(
    manager,
    rows.map((row) => ({
      deliveryId: row.delivery_id,
      version: row.stream_version,
      event: { type: 'CallbackTargetSet', data: { targetUrl: url, status: row.status, nextAttemptAt: instant(row.next_attempt_at) } },
    })),
    now,
  );
  return rows.length;
}
