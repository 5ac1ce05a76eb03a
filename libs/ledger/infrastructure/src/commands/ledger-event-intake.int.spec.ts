/**
 * Goal: the ledger takes a batch of order events in one transaction with one inbox statement,
 * applies it in (merchant, currency) order (so two replicas' batches take balance locks in one
 * order and cannot deadlock) while each order's events keep theirs, attaches payout holds
 * outside it, and treats a refused fact as the intake says: in a batch it rolls everything back
 * and reaches the port as it is (which then goes one by one), alone it is poison.
 * Method: the ledger's migrations on a private real PostgreSQL, the consumer called as the
 * messaging port calls it, every statement recorded.
 */
import { migratedPrivateDatabase, recordStatements } from '@mp/shared-data-access-postgres';
import { PoisonMessageError, type MessageEnvelope } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { OffsetClock } from '@mp/shared-util-clock';
import type { DataSource } from 'typeorm';
import { LEDGER_MIGRATIONS } from '../ledger.module';
import { paymentOrderEvent, type OrderFacts } from '@mp/ledger-testing';
import { LedgerEventIntake, type LedgerEventMeaning } from './ledger-event-intake';
import { PaymentEventsConsumer } from './payment-events.consumer';

describe('ledger event intake on real Postgres', () => {
  let dataSource: DataSource;
  let statements: string[];
  let consumer: PaymentEventsConsumer;
  const payIn = (merchantId: string, orderId: string): OrderFacts => ({
    merchantId,
    orderId,
    direction: 'incoming',
    amountMinor: '10000',
    feeMinor: '100',
    currency: 'RUB',
  });
  const streamsInAppendOrder = async (): Promise<string[]> =>
    (await dataSource.query(`SELECT stream_id FROM event_store ORDER BY global_position`)).map((row: { stream_id: string }) => row.stream_id);

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('ledgerintake', LEDGER_MIGRATIONS);
    statements = recordStatements(dataSource);
    consumer = new PaymentEventsConsumer(dataSource, new OffsetClock());
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('credits a batch of several merchants in one transaction, in merchant order, with one inbox statement', async () => {
    statements.length = 0;
    await consumer.handleAll([
      paymentOrderEvent('PaymentOrderSucceeded', payIn('mch_c', 'A-1')),
      paymentOrderEvent('PaymentOrderSucceeded', payIn('mch_a', 'A-2')),
      paymentOrderEvent('PaymentOrderSucceeded', payIn('mch_c', 'A-3')),
      paymentOrderEvent('PaymentOrderSucceeded', payIn('mch_b', 'A-4')),
    ]);

    expect(statements.filter((statement) => statement === 'START TRANSACTION')).toHaveLength(1);
    expect(statements.filter((statement) => statement.includes('INSERT INTO inbox'))).toHaveLength(1);
    expect(await streamsInAppendOrder()).toEqual(['ledger:mch_a:RUB', 'ledger:mch_b:RUB', 'ledger:mch_c:RUB', 'ledger:mch_c:RUB']);
    const credited = await dataSource.query(`SELECT order_id FROM ledger_credited_orders WHERE merchant_id = 'mch_c' ORDER BY order_id`);
    expect(credited).toEqual([{ order_id: 'A-1' }, { order_id: 'A-3' }]);
  });

  it("works out each event's meaning once per delivery, though the attachments and the money both need it", async () => {
    const meaningOf = jest.fn((_envelope: MessageEnvelope, _now: Date): LedgerEventMeaning => null);
    const intake = new LedgerEventIntake(dataSource, 'ledger.meaning-once', meaningOf, new OffsetClock());
    const events = [paymentOrderEvent('PaymentOrderCreated', payIn('mch_e', 'A-6')), paymentOrderEvent('PaymentOrderCreated', payIn('mch_e', 'A-7'))];
    statements.length = 0;
    await intake.handleAll(events);
    await intake.handleAll([events[0]]);
    expect(meaningOf.mock.calls.map(([envelope]) => envelope)).toEqual([events[0], events[1], events[0]]);
    // Nothing to attach or move: no statement at all.
    expect(statements).toEqual([]);
  });

  it('rolls a batch with a refused fact back as a whole; the same fact alone is poison', async () => {
    const refused = paymentOrderEvent('PaymentOrderSucceeded', {
      merchantId: 'mch_d',
      orderId: 'P-unknown',
      direction: 'outgoing',
      amountMinor: '500',
      feeMinor: '0',
      currency: 'RUB',
    });
    const before = await dataSource.query(`SELECT count(*)::int AS n FROM inbox`);

    await expect(consumer.handleAll([paymentOrderEvent('PaymentOrderSucceeded', payIn('mch_d', 'A-5')), refused])).rejects.toBeInstanceOf(DomainError);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM inbox`)).toEqual(before);
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM ledger_credited_orders WHERE merchant_id = 'mch_d'`)).toEqual([{ n: 0 }]);

    const alone = consumer.handleAll([refused]);
    await expect(alone).rejects.toBeInstanceOf(PoisonMessageError);
    await expect(alone).rejects.toThrow(`PaymentOrderSucceeded ${refused.id} refused by the ledger`);
  });
});
