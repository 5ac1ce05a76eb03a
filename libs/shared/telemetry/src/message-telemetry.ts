import { SpanKind } from '@opentelemetry/api';
import { runInSpan } from './tracing';

/** Kafka header names of the telemetry a message carries besides its envelope. */
export const CORRELATION_ID_HEADER = 'correlation-id';
export const TRACEPARENT_HEADER = 'traceparent';

/** What telemetry needs of a message: its envelope's ids, and where it was read. */
export interface TracedMessage {
  topic: string;
  partition: number;
  offset: string;
  envelope: { id: string; type: string; correlationId: string; traceparent?: string };
}

/**
 * The headers a published message carries: its correlation id, and the trace context it was
 * written in (the envelope's `traceparent`, recorded when the envelope was made, so a message
 * relayed later from the outbox still continues the trace of the work that wrote it).
 */
export function messageTelemetryHeaders(envelope: TracedMessage['envelope']): Record<string, string> {
  return { [CORRELATION_ID_HEADER]: envelope.correlationId, ...(envelope.traceparent ? { [TRACEPARENT_HEADER]: envelope.traceparent } : {}) };
}

/**
 * Handles a received message inside a consumer span that continues the producer's trace (from
 * the `traceparent` header, else the envelope's), with the message's correlation id in the
 * telemetry context: every log line written while handling it, and every message it causes,
 * carry that correlation id and trace.
 */
export function handleInMessageContext<T>(message: TracedMessage, traceparentHeader: string | undefined, work: () => Promise<T>): Promise<T> {
  const { topic, partition, offset, envelope } = message;
  return runInSpan(
    `${topic} process`,
    SpanKind.CONSUMER,
    { [TRACEPARENT_HEADER]: traceparentHeader ?? envelope.traceparent },
    { correlationId: envelope.correlationId },
    {
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': topic,
      'messaging.destination.partition.id': String(partition),
      'messaging.kafka.offset': offset,
      'messaging.message.id': envelope.id,
      'messaging.message.type': envelope.type,
      'messaging.message.conversation_id': envelope.correlationId,
    },
    work,
  );
}
