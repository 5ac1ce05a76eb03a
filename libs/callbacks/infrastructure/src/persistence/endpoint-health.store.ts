// Endpoint health: the origins' circuit breakers, and endpoints disabled after a failure run, re-enabled and listed.
import type { CircuitBreakerPolicy, EndpointFailureRun } from '@mp/callbacks-domain';
import type { CallbackEndpointView, EndpointDisabledCause } from '@mp/contracts-callbacks';
import { executeOrDefer } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';
import { appendDeliveryChanges } from './delivery-events';
import { CHANGED_POSITION, positionChanges, type ChangedPosition } from './delivery.store';
import { returning } from './query-rows';

/**
 * Moves an origin's circuit breaker on after an attempt: `up` closes it; `down` counts a
 * consecutive failure and, from the threshold on, (re)opens it for the cool-down, so a failed
 * half-open probe opens it again.
 */
export async function recordOriginHealth(
  manager: EntityManager,
  origin: string,
  health: 'up' | 'down',
  policy: CircuitBreakerPolicy,
  now: Date,
): Promise<void> {
  if (health === 'up') {
    await executeOrDefer(manager, {
      sql: `UPDATE callback_origin_circuits SET consecutive_failures = 0, open_until = NULL WHERE origin = $1 AND (consecutive_failures > 0 OR open_until IS NOT NULL)`,
      params: [origin],
    });
    return;
  }
  await executeOrDefer(manager, {
    sql: `INSERT INTO callback_origin_circuits AS c (origin, consecutive_failures, open_until, last_failure_at)
     VALUES ($1, 1, CASE WHEN 1 >= $2 THEN $3::timestamptz + make_interval(secs => $4::double precision / 1000) END, $3)
     ON CONFLICT (origin) DO UPDATE
        SET consecutive_failures = c.consecutive_failures + 1,
            open_until = CASE WHEN c.consecutive_failures + 1 >= $2 THEN $3::timestamptz + make_interval(secs => $4::double precision / 1000) ELSE c.open_until END,
            last_failure_at = $3`,
    params: [origin, policy.failureThreshold, now, policy.cooldownMs],
  });
}

/**
 * A 410 Gone, or a long run of failures: the merchant's endpoint (this URL) gets nothing until
 * the merchant or an operator re-enables it; its pending callbacks are parked.
 */
export async function disableEndpoint(
  manager: EntityManager,
  merchantId: string,
  url: string,
  cause: EndpointDisabledCause,
  reason: string,
  now: Date,
): Promise<void> {
  await manager.query(
    `INSERT INTO callback_disabled_endpoints (merchant_id, url, disabled_at, cause, reason) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (merchant_id, url) DO NOTHING`,
    [merchantId, url, now, cause, reason],
  );
  const parked = await returning<ChangedPosition>(
    manager,
    `UPDATE callback_deliveries SET status = 'endpoint_disabled', next_attempt_at = NULL, stream_version = stream_version + 1
      WHERE merchant_id = $1 AND target_url = $2 AND status = 'pending'
      RETURNING ${CHANGED_POSITION}`,
    [merchantId, url],
  );
  await appendDeliveryChanges(manager, positionChanges(parked, 'CallbackParked'), now);
}

/**
 * Re-enables an endpoint; its parked deliveries are due again now and its run of failures starts
 * over. Returns how many, or null if it was not disabled.
 */
export async function enableEndpoint(manager: EntityManager, merchantId: string, url: string, now: Date): Promise<number | null> {
  const removed = await returning(manager, `DELETE FROM callback_disabled_endpoints WHERE merchant_id = $1 AND url = $2 RETURNING url`, [merchantId, url]);
  if (removed.length === 0) return null;
  await manager.query(`DELETE FROM callback_endpoint_failures WHERE merchant_id = $1 AND url = $2`, [merchantId, url]);
  const resumed = await returning<ChangedPosition>(
    manager,
    `UPDATE callback_deliveries SET status = 'pending', next_attempt_at = $3, stream_version = stream_version + 1
      WHERE merchant_id = $1 AND target_url = $2 AND status = 'endpoint_disabled'
      RETURNING ${CHANGED_POSITION}`,
    [merchantId, url, now],
  );
  await appendDeliveryChanges(manager, positionChanges(resumed, 'CallbackUnparked'), now);
  return resumed.length;
}

export async function isEndpointDisabled(manager: EntityManager, merchantId: string, url: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(`SELECT 1 FROM callback_disabled_endpoints WHERE merchant_id = $1 AND url = $2`, [merchantId, url]);
  return rows.length > 0;
}

export async function listDisabledEndpoints(manager: EntityManager, merchantId: string | null): Promise<CallbackEndpointView[]> {
  const rows: Array<{ merchant_id: string; url: string; disabled_at: Date; cause: EndpointDisabledCause; reason: string; parked: number }> =
    await manager.query(
      `SELECT e.merchant_id, e.url, e.disabled_at, e.cause, e.reason,
            (SELECT count(*)::int FROM callback_deliveries d WHERE d.merchant_id = e.merchant_id AND d.target_url = e.url AND d.status = 'endpoint_disabled') AS parked
       FROM callback_disabled_endpoints e
      WHERE $1::text IS NULL OR e.merchant_id = $1
      ORDER BY e.disabled_at DESC`,
      [merchantId],
    );
  return rows.map((row) => ({
    merchant_id: row.merchant_id,
    url: row.url,
    disabled_at: row.disabled_at.toISOString(),
    cause: row.cause,
    reason: row.reason,
    parked_deliveries: row.parked,
  }));
}

/**
 * Moves an endpoint's run of failed attempts on: `up` ends it, `down` extends it (starting it
 * now if there was none) and returns it, for the disabling rule to judge.
 */
export async function recordEndpointHealth(
  manager: EntityManager,
  merchantId: string,
  url: string,
  health: 'up' | 'down',
  now: Date,
): Promise<EndpointFailureRun | null> {
  if (health === 'up') {
    await executeOrDefer(manager, { sql: `DELETE FROM callback_endpoint_failures WHERE merchant_id = $1 AND url = $2`, params: [merchantId, url] });
    return null;
  }
  const [run] = await returning<{ consecutive_failures: number; failing_since: Date }>(
    manager,
    `INSERT INTO callback_endpoint_failures AS f (merchant_id, url, consecutive_failures, failing_since) VALUES ($1, $2, 1, $3)
     ON CONFLICT (merchant_id, url) DO UPDATE SET consecutive_failures = f.consecutive_failures + 1
     RETURNING consecutive_failures, failing_since`,
    [merchantId, url, now],
  );
  return { consecutiveFailures: run.consecutive_failures, failingSince: run.failing_since };
}
