import { AsyncLocalStorage } from 'node:async_hooks';
import { isSpanContextValid, type Span } from '@opentelemetry/api';

/**
 * What the code running now is doing, for every log line it writes and every message it
 * publishes: the HTTP request it serves and/or the merchant request (correlation id) the
 * message it handles belongs to, and the span that traces it.
 */
export interface TelemetryContext {
  readonly requestId?: string;
  readonly correlationId?: string;
  readonly span?: Span;
}

/**
 * Node's AsyncLocalStorage, as nestjs-pino and OpenTelemetry use for the same purpose: the
 * context follows every await of a request or message handler without being passed around.
 */
const storage = new AsyncLocalStorage<TelemetryContext>();

export function runInTelemetryContext<T>(context: TelemetryContext, work: () => T): T {
  return storage.run(context, work);
}

export function currentTelemetryContext(): TelemetryContext | undefined {
  return storage.getStore();
}

/** The fields of the current context every log line carries (snake_case, like the API's fields). */
export function telemetryLogFields(): Record<string, string> {
  const context = storage.getStore();
  if (!context) return {};
  const fields: Record<string, string> = {};
  if (context.requestId) fields['request_id'] = context.requestId;
  if (context.correlationId) fields['correlation_id'] = context.correlationId;
  // Only a real trace: without an exporter and without a caller's traceparent, spans are no-ops.
  const span = context.span?.spanContext();
  if (span && isSpanContextValid(span)) fields['trace_id'] = span.traceId;
  return fields;
}
