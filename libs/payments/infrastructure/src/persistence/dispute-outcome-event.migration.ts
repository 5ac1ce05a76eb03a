import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20: payments acknowledges a dispute review with its own PaymentOrderDisputeOutcomeApplied
 * on `payments.order.events` instead of a RecordDisputeOutcomeApplied command on
 * `disputes.commands`, which only the gateway's Kafka principal may write. A legacy command
 * still waiting in the outbox at the upgrade would be refused by the ACLs, and the relay, which
 * publishes in order, would retry it forever and hold back every order event behind it. So it is
 * rewritten here into the event it stands for: same envelope id, time, correlation, causation and
 * trace, the order's key, `version` renamed `disputeVersion`, and `occurredAt` from when the row
 * was written. Published rows are history and stay as they were. Disputes applies either form
 * (it keeps accepting the command for one release), so the rewrite changes no outcome.
 * Written in SQL because the outbox is read by the relay only as rows: no code path to reuse.
 */
export class PaymentsDisputeOutcomeAsEvent1700000021000 implements MigrationInterface {
  name = 'PaymentsDisputeOutcomeAsEvent1700000021000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // json_strip_nulls drops only the absent traceparent: no other envelope field is ever null
    // here (causationId is the DisputeAccepted/Rejected event's id, data's fields are required).
    await queryRunner.query(`
      UPDATE outbox SET
        topic = 'payments.order.events',
        envelope = json_strip_nulls(json_build_object(
          'id', envelope->'id',
          'type', 'PaymentOrderDisputeOutcomeApplied',
          'schemaVersion', 1,
          'source', envelope->'source',
          'subject', envelope->'subject',
          'time', envelope->'time',
          'correlationId', envelope->'correlationId',
          'causationId', envelope->'causationId',
          'traceparent', envelope->'traceparent',
          'data', json_build_object(
            'merchantId', envelope->'data'->'merchantId',
            'orderId', envelope->'data'->'orderId',
            'disputeId', envelope->'data'->'disputeId',
            'disputeVersion', envelope->'data'->'version',
            'occurredAt', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          )
        ))
      WHERE topic = 'disputes.commands' AND published_at IS NULL AND envelope->>'type' = 'RecordDisputeOutcomeApplied'`);
  }

  async down(): Promise<void> {
    // Not reversed: turning events back into commands would have payments write a topic its
    // Kafka principal may not write. Roll back payments only together with a disputes that
    // knows the event (this release).
  }
}
