/**
 * Goal: the callback dispatcher's deliveries and attempts can be rebuilt from its event store
 * (docs/decisions/callback-delivery-events.md): after a realistic life (a batch with a duplicate,
 * claims, a success, a failure to retry, a redelivery asked while an attempt is in flight, a
 * delivery awaiting its URL then resumed, an endpoint disabled then re-enabled, a released
 * claim) the rebuild finds nothing to change; a row and an attempt changed by SQL are reported by
 * column and put right by --switch; the store's hash chain verifies, and an altered event is found.
 * Deliveries that existed before the dispatcher recorded events are imported by the migration,
 * one chained event each, and fold back into the same rows.
 * Method: the callbacks migrations on a private real PostgreSQL, the store functions the
 * dispatcher runs, the ops command as the ops image runs it, the auditor's chain check.
 */
import { randomUUID } from 'node:crypto';
import type { CallbackIntent } from '@mp/callbacks-domain';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import { rebuildProjection } from '@mp/shared-command-handling';
import { StreamVersionConflictError, verifyEventChain, type ChainReader } from '@mp/shared-messaging';
import type { DataSource } from 'typeorm';
import { CALLBACKS_MIGRATIONS } from '../callbacks.module';
import { CallbacksDeliveryEvents1700000070000 } from '../persistence/delivery-events.migration';
import {
  claimDueDeliveries,
  insertDeliveries,
  recordAttempt,
  releaseClaim,
  resumeAwaitingUrl,
  scheduleRedelivery,
  type NewDelivery,
} from '../persistence/delivery.store';
import { disableEndpoint, enableEndpoint } from '../persistence/endpoint-health.store';
import { CALLBACKS_DELIVERIES_PROJECTION } from './callbacks.rebuild';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1_000);
const SHOP = 'https://shop.example/cb';
const OTHER = 'https://other.example/cb';

function delivery(orderId: string, url: string, id = randomUUID()): NewDelivery {
  const intent: CallbackIntent = {
    merchantId: 'mch_rb',
    callbackType: 'payment.succeeded',
    subject: { kind: 'payment_order', id: orderId },
    stateVersion: 1,
    target: { kind: 'url', url },
    state: {},
    occurredAt: T0.toISOString(),
  };
  return {
    deliveryId: `msg_${id}`,
    sourceEvent: { id, type: 'PaymentOrderSucceeded', topic: 'payments.order.events' },
    intent,
    targetUrl: url,
    body: `{"order":"${orderId}"}`,
  };
}

const record = (outcome: string, responseStatus: number | null) => ({
  outcome,
  responseStatus,
  latencyMs: 12,
  excerpt: responseStatus === null ? null : 'ok',
  error: responseStatus === null ? 'connection refused' : null,
  webhookTimestamp: Math.floor(T0.getTime() / 1_000),
});

describe('callback deliveries rebuilt from their events, on real Postgres', () => {
  let dataSource: DataSource;
  const chain: ChainReader = { query: async (sql, values) => ({ rows: await dataSource.query(sql, values) }) };
  const claim = (now: Date) => claimDueDeliveries(dataSource.manager, { owner: 'replica-1', now, leaseMs: 30_000, limit: 10, perOriginConcurrency: 10 });
  const inTx = <T>(work: (manager: DataSource['manager']) => Promise<T>) => dataSource.transaction(work);

  const rebuild = (options: { switch: boolean }) => rebuildProjection(dataSource, CALLBACKS_DELIVERIES_PROJECTION, options);

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('cbrb', CALLBACKS_MIGRATIONS);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('folds a realistic life back into the same rows, reports and restores SQL changes, and chains every event', async () => {
    const [paid, retried, redelivered, awaiting] = [delivery('A-1', SHOP), delivery('A-2', SHOP), delivery('A-3', OTHER), delivery('A-4', '')];
    expect(await inTx((manager) => insertDeliveries(manager, [paid, retried, paid, redelivered, awaiting], T0))).toBe(4);

    const claimed = await inTx(() => claim(at(1)));
    expect(claimed.map((row) => row.deliveryId).sort()).toEqual([paid, retried, redelivered].map((row) => row.deliveryId).sort());
    const claimedOf = (given: NewDelivery) => {
      const found = claimed.find((row) => row.deliveryId === given.deliveryId);
      if (!found) throw new Error(`${given.deliveryId} was not claimed`);
      return found;
    };

    await recordAttempt(dataSource.manager, claimedOf(paid), record('succeeded', 200), { status: 'succeeded', at: at(2) }, claimedOf(paid).claimedAs);
    await recordAttempt(dataSource.manager, claimedOf(retried), record('failed', 500), { status: 'pending', at: at(60) });
    // Asked again while its attempt is in flight: kept due at that time, not the attempt's retry time.
    expect(await scheduleRedelivery(dataSource.manager, redelivered.deliveryId, at(3))).toBe(true);
    // Decided from the row as claimed, the record finds the row moved on and writes nothing; read again, it keeps the redelivery.
    await expect(
      recordAttempt(
        dataSource.manager,
        claimedOf(redelivered),
        record('network_error', null),
        { status: 'pending', at: at(120) },
        claimedOf(redelivered).claimedAs,
      ),
    ).rejects.toBeInstanceOf(StreamVersionConflictError);
    await recordAttempt(dataSource.manager, claimedOf(redelivered), record('network_error', null), { status: 'pending', at: at(120) });
    expect(await dataSource.query(`SELECT status, next_attempt_at FROM callback_deliveries WHERE delivery_id = $1`, [redelivered.deliveryId])).toEqual([
      { status: 'pending', next_attempt_at: at(3) },
    ]);

    expect(await resumeAwaitingUrl(dataSource.manager, 'mch_rb', SHOP, at(4))).toBe(1);
    await inTx((manager) => disableEndpoint(manager, 'mch_rb', OTHER, 'gone', '410 Gone', at(5)));
    expect(await dataSource.query(`SELECT status FROM callback_deliveries WHERE delivery_id = $1`, [redelivered.deliveryId])).toEqual([
      { status: 'endpoint_disabled' },
    ]);
    expect(await inTx((manager) => enableEndpoint(manager, 'mch_rb', OTHER, at(6)))).toBe(1);

    const again = await inTx(() => claim(at(7)));
    const toRelease = again.find((row) => row.deliveryId === awaiting.deliveryId);
    if (!toRelease) throw new Error('the resumed delivery was not claimed');
    await releaseClaim(dataSource.manager, toRelease, at(90));

    const clean = await rebuild({ switch: false });
    expect(clean).toMatchObject({ projection: 'callbacks.deliveries', differences: [] });
    expect(clean.eventsFolded).toBeGreaterThanOrEqual(15);

    await dataSource.query(`UPDATE callback_deliveries SET status = 'failed' WHERE delivery_id = $1`, [paid.deliveryId]);
    await dataSource.query(`UPDATE callback_attempts SET response_status = 502 WHERE delivery_id = $1 AND attempt_number = 1`, [retried.deliveryId]);
    const reported = await rebuild({ switch: false });
    expect(reported.differences).toEqual([
      { table: 'callback_deliveries', key: { delivery_id: paid.deliveryId }, kind: 'changed', column: 'status', live: 'failed', rebuilt: 'succeeded' },
      {
        table: 'callback_attempts',
        key: { delivery_id: retried.deliveryId, attempt_number: '1' },
        kind: 'changed',
        column: 'response_status',
        live: '502',
        rebuilt: '500',
      },
    ]);
    expect(reported.notDerived).toEqual([{ table: 'callback_deliveries', columns: ['lease_owner', 'lease_expires_at', 'list_position'] }]);
    expect((await rebuild({ switch: true })).differences).toHaveLength(2);
    expect(await dataSource.query(`SELECT status FROM callback_deliveries WHERE delivery_id = $1`, [paid.deliveryId])).toEqual([{ status: 'succeeded' }]);
    expect(await dataSource.query(`SELECT response_status FROM callback_attempts WHERE delivery_id = $1`, [retried.deliveryId])).toEqual([
      { response_status: 500 },
    ]);
    expect((await rebuild({ switch: false })).differences).toEqual([]);

    expect((await verifyEventChain(chain)).findings).toEqual([]);
    await dataSource.query(`ALTER TABLE event_store DISABLE TRIGGER event_store_append_only`);
    await dataSource.query(
      `UPDATE event_store SET envelope = jsonb_set(envelope, '{data,status}', '"failed"') WHERE stream_id = $1 AND event_type = 'CallbackAttemptFinished'`,
      [`callback-delivery:${paid.deliveryId}`],
    );
    await dataSource.query(`ALTER TABLE event_store ENABLE TRIGGER event_store_append_only`);
    expect((await verifyEventChain(chain)).findings).toEqual([
      expect.objectContaining({ kind: 'altered', streamId: `callback-delivery:${paid.deliveryId}`, streamVersion: 3 }),
    ]);
  });

  it('imports the deliveries that existed before, one chained event each, which fold back into the same rows', async () => {
    const before = await migratedPrivateDatabase(
      'cbimp',
      CALLBACKS_MIGRATIONS.filter((migration) => migration !== CallbacksDeliveryEvents1700000070000),
    );
    try {
      const [old, waiting] = [delivery('OLD-1', SHOP), delivery('OLD-2', '')];
      await before.transaction(async (manager) => {
        for (const [given, status, next, attempts, delivered] of [
          [old, 'succeeded', null, 2, T0],
          [waiting, 'awaiting_url', null, 0, null],
        ] as const) {
          await manager.query(
            `INSERT INTO callback_deliveries (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type,
                                              state_version, target_url, body, status, attempt_count, next_attempt_at, delivered_at, created_at)
             VALUES ($1, $2, 'PaymentOrderSucceeded', 'payments.order.events', 'mch_rb', 'payment_order', $3, 'payment.succeeded', 1, $4, $5, $6, $7, $8, $9, $10)`,
            [given.deliveryId, given.sourceEvent.id, given.intent.subject.id, given.targetUrl, given.body, status, attempts, next, delivered, T0],
          );
        }
        await manager.query(
          `INSERT INTO callback_attempts (delivery_id, attempt_number, started_at, instance_id, webhook_timestamp, outcome, response_status, latency_ms, response_excerpt, error)
           VALUES ($1, 1, $2, 'old-replica', 1772359200, 'failed', 503, 20, 'busy', NULL), ($1, 2, $3, 'old-replica', 1772359260, 'succeeded', 200, 15, 'ok', NULL)`,
          [old.deliveryId, at(1), at(61)],
        );
      });
      const runner = before.createQueryRunner();
      await new CallbacksDeliveryEvents1700000070000().up(runner);
      await runner.release();

      expect(await before.query(`SELECT event_type, stream_version FROM event_store WHERE stream_id = $1`, [`callback-delivery:${old.deliveryId}`])).toEqual([
        { event_type: 'CallbackDeliveryImported', stream_version: 1 },
      ]);
      expect(await resumeAwaitingUrl(before.manager, 'mch_rb', SHOP, at(100))).toBe(1);
      expect(await rebuildProjection(before, CALLBACKS_DELIVERIES_PROJECTION, { switch: false })).toMatchObject({ eventsFolded: 3, differences: [] });
      const oldChain: ChainReader = { query: async (sql, values) => ({ rows: await before.query(sql, values) }) };
      expect((await verifyEventChain(oldChain)).findings).toEqual([]);
    } finally {
      await before.destroy();
    }
  });
});
