import { randomUUID } from 'node:crypto';
import { currentTraceparent } from '@mp/shared-telemetry';

/**
 * The one envelope every message on the broker travels in (CloudEvents attributes plus
 * causation metadata). `id` is the de-duplication key of every consumer's inbox; `type` with
 * `schemaVersion` selects the payload schema; `subject` names the entity the message is about.
 */
export interface MessageEnvelope<TType extends string = string, TData = unknown> {
  readonly id: string;
  readonly type: TType;
  readonly schemaVersion: number;
  /** The service that produced the message, e.g. `payments`. */
  readonly source: string;
  /** The entity, e.g. `merchant:mch_1/order:A-1`. */
  readonly subject: string;
  /** RFC 3339 timestamp of when the message was produced. */
  readonly time: string;
  /** Shared by everything one merchant request caused, for tracing. */
  readonly correlationId: string;
  /** The id of the message that caused this one; null for messages started by a request. */
  readonly causationId: string | null;
  /** Commands only: the topic the outcome goes to. */
  readonly replyTo?: string;
  /**
   * The W3C trace context of the work that made the message (request or message handling), so
   * the trace continues in its consumers even when the message waits in an outbox first. Optional
   * and ignored by the payload schemas: adding it needed no new schema version nor upcaster.
   */
  readonly traceparent?: string;
  readonly data: TData;
}

export interface NewEnvelope<TType extends string, TData> {
  type: TType;
  schemaVersion: number;
  source: string;
  subject: string;
  data: TData;
  correlationId: string;
  causationId?: string | null;
  replyTo?: string;
  id?: string;
  time?: Date;
  /** Defaults to the trace context running now (none outside a traced request or message). */
  traceparent?: string;
}

export function createEnvelope<TType extends string, TData>(fields: NewEnvelope<TType, TData>): MessageEnvelope<TType, TData> {
  return {
    id: fields.id ?? randomUUID(),
    type: fields.type,
    schemaVersion: fields.schemaVersion,
    source: fields.source,
    subject: fields.subject,
    time: (fields.time ?? new Date()).toISOString(),
    correlationId: fields.correlationId,
    causationId: fields.causationId ?? null,
    ...(fields.replyTo ? { replyTo: fields.replyTo } : {}),
    ...withTraceparent(fields.traceparent ?? currentTraceparent()),
    data: fields.data,
  };
}

const withTraceparent = (traceparent: string | undefined): { traceparent?: string } => (traceparent ? { traceparent } : {});

/** A message that can never be processed, whatever the number of attempts: it goes to the dead-letter topic at once. */
export class PoisonMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoisonMessageError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses and checks the envelope of a received message; anything malformed is poison. */
export function parseEnvelope(raw: Buffer | string | null): MessageEnvelope {
  if (raw === null) throw new PoisonMessageError('message has no value');
  let value: unknown;
  try {
    value = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    throw new PoisonMessageError('message value is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PoisonMessageError('message value is not an object');
  }
  const envelope = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof envelope['id'] !== 'string' || !UUID.test(envelope['id'])) problems.push('id');
  for (const field of ['type', 'source', 'subject', 'time', 'correlationId']) {
    if (typeof envelope[field] !== 'string' || envelope[field] === '') problems.push(field);
  }
  if (!Number.isInteger(envelope['schemaVersion'])) problems.push('schemaVersion');
  if (envelope['causationId'] !== null && typeof envelope['causationId'] !== 'string') problems.push('causationId');
  if (!('data' in envelope)) problems.push('data');
  if (problems.length > 0) throw new PoisonMessageError(`envelope fields missing or malformed: ${problems.join(', ')}`);
  return envelope as unknown as MessageEnvelope;
}
