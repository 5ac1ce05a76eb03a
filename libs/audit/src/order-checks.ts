import type { AcknowledgementRecord, AuditCheck, AuditConnection, Violation } from './audit-check';

/**
 * Creation events, not projection rows: the projections' primary key (merchant_id, order_id)
 * could not hold a second row, but two streams, or two creations in one stream, could each have
 * moved money. Grouped on the event's own merchant and order ids, so a stream named otherwise
 * is caught too.
 */
async function duplicatedCreations(connection: AuditConnection, eventTypes: string[], what: string): Promise<Violation[]> {
  const { rows } = await connection.query<{ merchant_id: string; order_id: string; creations: string }>(
    `SELECT envelope #>> '{data,merchantId}' AS merchant_id, envelope #>> '{data,orderId}' AS order_id, count(*)::text AS creations
     FROM event_store WHERE event_type = ANY($1::text[])
     GROUP BY 1, 2 HAVING count(*) > 1`,
    [eventTypes],
  );
  return rows.map((row) => ({
    merchantId: row.merchant_id,
    message: `merchant ${row.merchant_id} ${what} ${row.order_id} was created ${row.creations} times`,
  }));
}

export const onePaymentOrderPerOrderId: AuditCheck = {
  name: 'one-payment-order-per-order-id',
  description: 'At most one payment order (pay-in or payout) per (merchant, order_id): one creation event each in the payments event store.',
  reads: ['payments'],
  run: ({ connections }) => duplicatedCreations(connections.payments, ['IncomingPaymentCreated', 'OutgoingPaymentCreated'], 'order'),
};

export const oneWithdrawalPerOrderId: AuditCheck = {
  name: 'one-withdrawal-per-order-id',
  description: 'At most one withdrawal per (merchant, order_id): one WithdrawalRequested each in the withdrawals event store.',
  reads: ['withdrawals'],
  run: ({ connections }) => duplicatedCreations(connections.withdrawals, ['WithdrawalRequested'], 'withdrawal'),
};

/** Which of `records` exist in `table`: one query with the keys as two arrays, joined in SQL. */
async function existingKeys(
  connection: AuditConnection,
  table: 'payment_orders' | 'withdrawals',
  records: readonly AcknowledgementRecord[],
): Promise<Set<string>> {
  const { rows } = await connection.query<{ merchant_id: string; order_id: string }>(
    `SELECT t.merchant_id, t.order_id FROM ${table} t
     JOIN unnest($1::text[], $2::text[]) AS asked (merchant_id, order_id) USING (merchant_id, order_id)`,
    [records.map((record) => record.merchant_id), records.map((record) => record.order_id)],
  );
  return new Set(rows.map((row) => JSON.stringify([row.merchant_id, row.order_id])));
}

/**
 * What the caller was told against what the platform holds. A key counts as acknowledged when
 * any of its records is (a retry acknowledged after a timed-out try, or a replay answered with
 * the stored result, is still one order); refused only when every record of it was refused.
 */
export const acknowledgedOrdersExist: AuditCheck = {
  name: 'acknowledged-orders-exist',
  description: 'Every order or withdrawal the caller was acknowledged (2xx) exists, and none it was refused does (needs --acknowledged).',
  reads: ['payments', 'withdrawals'],
  async run({ connections, acknowledgements }) {
    if (!acknowledgements) return null;
    const byKey = new Map<string, AcknowledgementRecord>();
    for (const record of acknowledgements) {
      const key = JSON.stringify([record.kind, record.merchant_id, record.order_id]);
      if (!byKey.get(key)?.acknowledged) byKey.set(key, record);
    }
    const records = [...byKey.values()];
    const existing = {
      payment: await existingKeys(
        connections.payments,
        'payment_orders',
        records.filter((record) => record.kind === 'payment'),
      ),
      withdrawal: await existingKeys(
        connections.withdrawals,
        'withdrawals',
        records.filter((record) => record.kind === 'withdrawal'),
      ),
    };
    const violations: Violation[] = [];
    for (const record of records) {
      const exists = existing[record.kind].has(JSON.stringify([record.merchant_id, record.order_id]));
      if (record.acknowledged && !exists)
        violations.push({
          merchantId: record.merchant_id,
          message: `merchant ${record.merchant_id} ${record.kind} ${record.order_id} was acknowledged but does not exist (lost)`,
        });
      if (!record.acknowledged && exists)
        violations.push({
          merchantId: record.merchant_id,
          message: `merchant ${record.merchant_id} ${record.kind} ${record.order_id} was refused but exists (phantom)`,
        });
    }
    return violations;
  },
};
