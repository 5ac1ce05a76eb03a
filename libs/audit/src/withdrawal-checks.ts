import type { AuditCheck } from './audit-check';

/**
 * The network's record is `simulated_network_sends` (one row per idempotency key, the
 * withdrawal's stream id `withdrawal:<merchant>:<order_id>`; `requests` > 1 is a resend answered
 * from memory, not a second broadcast). A live network adapter keeps its record at the network,
 * so for live withdrawals only the event-store half of these checks applies.
 */
const STREAM_OF_WITHDRAWAL = `'withdrawal:' || w.merchant_id || ':' || w.order_id`;

export const withdrawalBroadcastOnce: AuditCheck = {
  name: 'withdrawal-broadcast-once',
  description:
    'No withdrawal was broadcast twice: at most one WithdrawalCompleted per withdrawal, a completed withdrawal carries the transaction hash the network recorded for its key, and no completed network send lacks its withdrawal.',
  reads: ['withdrawals'],
  async run({ connections: { withdrawals } }) {
    const { rows } = await withdrawals.query<{ merchant_id: string | null; message: string }>(
      `SELECT envelope #>> '{data,merchantId}' AS merchant_id,
              'withdrawal ' || stream_id || ' completed ' || count(*) || ' times' AS message
         FROM event_store WHERE event_type = 'WithdrawalCompleted' GROUP BY stream_id, 1 HAVING count(*) > 1
       UNION ALL
       SELECT w.merchant_id, 'withdrawal ' || ${STREAM_OF_WITHDRAWAL} || ' records transaction ' || coalesce(w.transaction_hash, 'none') || ', the network sent ' || s.transaction_hash
         FROM withdrawals w JOIN simulated_network_sends s ON s.idempotency_key = ${STREAM_OF_WITHDRAWAL}
        WHERE w.status = 'COMPLETED' AND s.outcome = 'completed' AND w.transaction_hash IS DISTINCT FROM s.transaction_hash
       UNION ALL
       SELECT NULL, 'the network sent ' || s.idempotency_key || ' (transaction ' || coalesce(s.transaction_hash, 'none') || ') but no such withdrawal exists'
         FROM simulated_network_sends s WHERE s.outcome = 'completed'
          AND NOT EXISTS (SELECT 1 FROM withdrawals w WHERE ${STREAM_OF_WITHDRAWAL} = s.idempotency_key)`,
    );
    return rows.map((row) => ({ merchantId: row.merchant_id, message: row.message }));
  },
};

export const noRefundAfterBroadcast: AuditCheck = {
  name: 'no-refund-after-successful-broadcast',
  description:
    'No withdrawal failed (and had its hold released back to the merchant) after the network recorded a successful send of it, and none has a WithdrawalFailed after a WithdrawalCompleted.',
  reads: ['withdrawals'],
  async run({ connections: { withdrawals } }) {
    const { rows } = await withdrawals.query<{ merchant_id: string; message: string }>(
      `SELECT w.merchant_id, 'withdrawal ' || ${STREAM_OF_WITHDRAWAL} || ' is FAILED but the network sent it (transaction ' || coalesce(s.transaction_hash, 'none') || ')' AS message
         FROM withdrawals w JOIN simulated_network_sends s ON s.idempotency_key = ${STREAM_OF_WITHDRAWAL}
        WHERE w.status = 'FAILED' AND s.outcome = 'completed'
       UNION ALL
       SELECT completed.envelope #>> '{data,merchantId}', 'withdrawal ' || completed.stream_id || ' failed after it completed'
         FROM event_store completed JOIN event_store failed ON failed.stream_id = completed.stream_id AND failed.stream_version > completed.stream_version
        WHERE completed.event_type = 'WithdrawalCompleted' AND failed.event_type = 'WithdrawalFailed'`,
    );
    return rows.map((row) => ({ merchantId: row.merchant_id, message: row.message }));
  },
};
