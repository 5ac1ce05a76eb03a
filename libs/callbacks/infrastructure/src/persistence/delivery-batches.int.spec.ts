/**
 * Goal: the dispatcher records a batch of events' deliveries in one statement with what one
 * insert per event did: each new delivery pending and due, one to a disabled endpoint parked, an
 * event (or the same fact under another id) that already has a delivery adding nothing, and the
 * count of new ones returned so the worker is nudged only for them.
 * Method: the callbacks migrations on a private real PostgreSQL, every statement recorded.
 */
import { randomUUID } from 'node:crypto';
import type { CallbackIntent } from '@mp/callbacks-domain';
import { migratedPrivateDatabase, recordStatements } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { CALLBACKS_MIGRATIONS } from '../callbacks.module';
import { StreamVersionConflictError } from '@mp/shared-messaging';
import { insertDeliveries, resumeAwaitingUrl, scheduleRedelivery, type NewDelivery } from './delivery.store';

const NOW = new Date('2026-03-01T10:00:00.000Z');

function delivery(orderId: string, stateVersion: number, url = 'https://shop.example/cb'): NewDelivery {
  const id = randomUUID();
  const intent: CallbackIntent = {
    merchantId: 'mch_1',
    callbackType: 'payment.succeeded',
    subject: { kind: 'payment_order', id: orderId },
    stateVersion,
    target: { kind: 'url', url },
    state: {},
    occurredAt: NOW.toISOString(),
  };
  return { deliveryId: `msg_${id}`, sourceEvent: { id, type: 'PaymentOrderSucceeded', topic: 'payments.order.events' }, intent, targetUrl: url, body: '{}' };
}

describe('callback deliveries recorded in batches, on real Postgres', () => {
  let dataSource: DataSource;
  let statements: string[];

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('cbatch', CALLBACKS_MIGRATIONS);
    statements = recordStatements(dataSource);
    await dataSource.query(
      `INSERT INTO callback_disabled_endpoints (merchant_id, url, disabled_at, reason) VALUES ('mch_1', 'https://gone.example/cb', now(), 'answered 410')`,
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('records new deliveries and their events in one statement, parks the disabled endpoint’s, and adds nothing for a fact already recorded', async () => {
    const first = delivery('A-1', 3);
    expect(await insertDeliveries(dataSource.manager, [first], NOW)).toBe(1);

    statements.length = 0;
    const sameFactNewId = { ...delivery('A-1', 3), body: '{"copy":true}' };
    const created = await insertDeliveries(
      dataSource.manager,
      [first, delivery('A-2', 3), sameFactNewId, delivery('A-3', 4, 'https://gone.example/cb'), delivery('A-2', 3)],
      NOW,
    );

    expect(created).toBe(2);
    // One read, then the rows and their CallbackDeliveryRecorded events in one statement (in a transaction of its own here).
    expect(statements.filter((sql) => !/^(START TRANSACTION|COMMIT)$/.test(sql))).toEqual([
      expect.stringMatching(/^SELECT EXISTS/),
      expect.stringMatching(/^WITH w0 AS \(INSERT INTO callback_deliveries/),
    ]);
    expect(await dataSource.query(`SELECT count(*)::int AS events FROM event_store WHERE event_type = 'CallbackDeliveryRecorded'`)).toEqual([{ events: 3 }]);
    const rows = await dataSource.query(`SELECT subject_id, status, next_attempt_at FROM callback_deliveries ORDER BY subject_id`);
    expect(rows).toEqual([
      { subject_id: 'A-1', status: 'pending', next_attempt_at: NOW },
      { subject_id: 'A-2', status: 'pending', next_attempt_at: NOW },
      { subject_id: 'A-3', status: 'endpoint_disabled', next_attempt_at: null },
    ]);
  });

  it('keeps a delivery with no target awaiting a URL, and sends it (or parks it) once the merchant sets one', async () => {
    const kept = { ...delivery('W-1', 2, ''), intent: { ...delivery('W-1', 2).intent, merchantId: 'mch_2', subject: { kind: 'withdrawal', id: 'W-1' } } };
    const keptToo = { ...delivery('W-2', 2, ''), intent: { ...delivery('W-2', 2).intent, merchantId: 'mch_2', subject: { kind: 'withdrawal', id: 'W-2' } } };
    expect(await insertDeliveries(dataSource.manager, [kept, keptToo], NOW)).toBe(2);
    const awaiting = async () =>
      dataSource.query(`SELECT subject_id, target_url, status, next_attempt_at FROM callback_deliveries WHERE merchant_id = 'mch_2' ORDER BY subject_id`);
    expect(await awaiting()).toEqual([
      { subject_id: 'W-1', target_url: '', status: 'awaiting_url', next_attempt_at: null },
      { subject_id: 'W-2', target_url: '', status: 'awaiting_url', next_attempt_at: null },
    ]);
    // A redelivery of a kept callback finds it, and leaves it waiting.
    expect(await scheduleRedelivery(dataSource.manager, kept.deliveryId, NOW)).toBe(true);
    expect((await awaiting())[0]).toMatchObject({ status: 'awaiting_url' });
    // Another merchant's URL changes nothing here; this merchant's sends both, once.
    expect(await resumeAwaitingUrl(dataSource.manager, 'mch_1', 'https://other.example/cb', NOW)).toBe(0);
    expect(await resumeAwaitingUrl(dataSource.manager, 'mch_2', 'https://shop.example/late', NOW)).toBe(2);
    expect(await awaiting()).toEqual([
      { subject_id: 'W-1', target_url: 'https://shop.example/late', status: 'pending', next_attempt_at: NOW },
      { subject_id: 'W-2', target_url: 'https://shop.example/late', status: 'pending', next_attempt_at: NOW },
    ]);
    expect(await resumeAwaitingUrl(dataSource.manager, 'mch_2', 'https://shop.example/late', NOW)).toBe(0);
  });

  it('parks a kept delivery when the URL the merchant sets is a disabled endpoint', async () => {
    const kept = { ...delivery('W-3', 2, ''), intent: { ...delivery('W-3', 2).intent, subject: { kind: 'withdrawal', id: 'W-3' } } };
    expect(await insertDeliveries(dataSource.manager, [kept], NOW)).toBe(1);
    expect(await resumeAwaitingUrl(dataSource.manager, 'mch_1', 'https://gone.example/cb', NOW)).toBe(1);
    expect(await dataSource.query(`SELECT status, next_attempt_at FROM callback_deliveries WHERE subject_id = 'W-3'`)).toEqual([
      { status: 'endpoint_disabled', next_attempt_at: null },
    ]);
  });

  it('writes nothing of a batch when another writer recorded one of its deliveries after the read, and says so as a version conflict', async () => {
    const contested = delivery('R-1', 1);
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted = () => undefined as void;
    const other = new Promise<void>((resolve) => (inserted = resolve));
    const first = dataSource.transaction(async (manager) => {
      await insertDeliveries(manager, [contested], NOW);
      inserted();
      await held;
    });
    await other;
    const second = insertDeliveries(dataSource.manager, [delivery('R-2', 1), { ...contested }], NOW);
    // The second read missed the uncommitted row; its insert waits on it, then fails whole.
    setTimeout(release, 200);
    await expect(second).rejects.toBeInstanceOf(StreamVersionConflictError);
    await first;
    expect(await dataSource.query(`SELECT subject_id FROM callback_deliveries WHERE subject_id LIKE 'R-%'`)).toEqual([{ subject_id: 'R-1' }]);
    expect(await insertDeliveries(dataSource.manager, [delivery('R-2', 1), contested], NOW)).toBe(1);
  });
});
