import type { AuditCheck, Violation } from './audit-check';

interface TerminalObject {
  merchant_id: string;
  subject_kind: 'payment_order' | 'withdrawal' | 'dispute';
  subject_id: string;
  callback_type: string;
}

/**
 * The callback a terminal object's last transition owes the merchant (the routing table of
 * libs/callbacks/domain/src/callback-routing.ts): `payment.<status>` to the order's own
 * callback_url (always set: the API requires it), `withdrawal.<status>` and
 * `dispute.<status>` to the merchant's default URL.
 */
const TERMINAL_PAYMENT_ORDERS = `SELECT merchant_id, 'payment_order' AS subject_kind, order_id AS subject_id, 'payment.' || lower(status) AS callback_type FROM payment_orders WHERE status <> 'PENDING'`;
const TERMINAL_WITHDRAWALS = `SELECT merchant_id, 'withdrawal' AS subject_kind, order_id AS subject_id, 'withdrawal.' || lower(status) AS callback_type FROM withdrawals WHERE status IN ('COMPLETED', 'FAILED')`;
const TERMINAL_DISPUTES = `SELECT merchant_id, 'dispute' AS subject_kind, dispute_id AS subject_id, 'dispute.' || lower(status) AS callback_type FROM disputes WHERE status IN ('ACCEPTED', 'REJECTED')`;

/**
 * Accounted for: delivered (`succeeded`), or still to be tried (`pending`), or held back because
 * the merchant's endpoint answered 410 Gone or kept failing (`endpoint_disabled`: the merchant
 * told us to stop; the delivery is kept and redelivered from the webhook tools). Not accounted
 * for: no delivery at all (the event never reached the dispatcher) or `failed` (retries ran out).
 */
const UNACCOUNTED = `
  SELECT owed.merchant_id, owed.subject_kind, owed.subject_id, owed.callback_type,
         (SELECT string_agg(d.status, ',') FROM callback_deliveries d
           WHERE d.merchant_id = owed.merchant_id AND d.subject_kind = owed.subject_kind AND d.subject_id = owed.subject_id AND d.callback_type = owed.callback_type) AS statuses
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS owed (merchant_id, subject_kind, subject_id, callback_type)
  WHERE NOT EXISTS (SELECT 1 FROM callback_deliveries d
    WHERE d.merchant_id = owed.merchant_id AND d.subject_kind = owed.subject_kind AND d.subject_id = owed.subject_id AND d.callback_type = owed.callback_type
      AND d.status IN ('succeeded', 'pending', 'endpoint_disabled', 'awaiting_url'))`;

/**
 * One query per database: the terminal objects of payments, withdrawals and disputes, then the
 * ones no delivery accounts for (callbacks), the keys passed as arrays. Memory grows with the
 * number of terminal objects, not queries.
 */
export const terminalObjectsHaveCallbacks: AuditCheck = {
  name: 'terminal-objects-have-callbacks',
  description:
    'Every terminal payment order, withdrawal and dispute has its outcome callback delivered, pending retry, held for a disabled endpoint, or kept until its merchant sets a default callback URL.',
  reads: ['payments', 'withdrawals', 'disputes', 'callbacks'],
  async run({ connections }) {
    const owed: TerminalObject[] = [
      ...(await connections.payments.query<TerminalObject>(TERMINAL_PAYMENT_ORDERS)).rows,
      ...(await connections.withdrawals.query<TerminalObject>(TERMINAL_WITHDRAWALS)).rows,
      ...(await connections.disputes.query<TerminalObject>(TERMINAL_DISPUTES)).rows,
    ];
    const column = (name: keyof TerminalObject) => owed.map((object) => object[name]);
    const { rows } = await connections.callbacks.query<TerminalObject & { statuses: string | null }>(UNACCOUNTED, [
      column('merchant_id'),
      column('subject_kind'),
      column('subject_id'),
      column('callback_type'),
    ]);
    return rows.map((row): Violation => ({
      merchantId: row.merchant_id,
      message: `merchant ${row.merchant_id} ${row.subject_kind} ${row.subject_id}: ${row.callback_type} ${row.statuses ? `only ${row.statuses}` : 'has no delivery'}`,
    }));
  },
};
