import type { ErrorDescription } from '@mp/shared-util-errors';
import type { DisputeView } from './api';

/**
 * Topics of the disputes context. Commands are keyed `<merchantId>/<orderId>` (the disputed
 * order), so the opens of one order stay in one partition; dispute events are keyed the same way.
 */
export const DISPUTES_TOPICS = {
  /** Commands from the gateway to the disputes service (endpoint 14); the gateway alone writes them. */
  commands: 'disputes.commands',
  /** External events of disputes: what payments (the order overlay, settlement) and callbacks rely on. */
  events: 'disputes.events',
} as const;

export const DISPUTE_COMMAND_SCHEMA_VERSION = 1;

export const DISPUTE_COMMAND_TYPES = {
  /** From the gateway (endpoint 14). */
  open: 'OpenDispute',
} as const;

export type DisputeCommandType = (typeof DISPUTE_COMMAND_TYPES)[keyof typeof DISPUTE_COMMAND_TYPES];

/** The merchant's open request as it travels on Kafka: no receipt bytes, only the stored receipt's reference. */
export interface OpenDisputeCommandData {
  merchantId: string;
  orderId: string;
  /** Minor units of the order's currency, or null for the order amount; the gateway cannot convert (it does not know the currency). */
  amount: string | null;
  comment: string | null;
  receiptId: string | null;
  /** The merchant's reference data, checked by the gateway; absent: none sent. Never read to decide anything. */
  metadata?: Record<string, string>;
}

/**
 * The answer to an open, on the sending gateway replica's `gateway.replies.<instance>` (the
 * reply path of payments). A refusal comes from disputes; an accepted open comes from payments,
 * once it has applied the PENDING overlay (see DisputeExternalEventData), so a 201 is never
 * followed by a read of the order's old state.
 */
/** Replies on the sending gateway replica's `gateway.replies.<instance>` (the same reply path as payments). */
export type DisputeCommandReplyData = { outcome: 'accepted'; dispute: DisputeView } | { outcome: 'rejected'; error: ErrorDescription };
