import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { ConfigError } from '@mp/shared-util-config';
import { currentTelemetryContext, runInTelemetryContext, type TelemetryContext } from './telemetry-context';

const TRACES_EXPORTERS = ['none', 'otlp'] as const;

/**
 * Starts tracing for the process: spans for HTTP requests (instrumentHttp) and handled messages
 * (handleInMessageContext), W3C trace context (`traceparent`) carried in HTTP and Kafka headers.
 * Off by default (unlike the OpenTelemetry SDK's own default), so nothing is sent anywhere
 * unless asked for: with OTEL_TRACES_EXPORTER=otlp spans are recorded and sent in batches to
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), read by the exporter.
 * Without an exporter no tracer provider is registered at all: recording spans nobody reads,
 * and a second context store beside the telemetry context, cost the quick bench's pay-in
 * 17.7 CPU-ms instead of 15.2. The propagator is still registered, so a `traceparent` a caller sends is
 * passed on to the messages and calls it causes, and the caller's trace stays whole.
 * `processors` adds span processors and records spans whatever the exporter (tests).
 * Returns the provider, or null when spans are not recorded.
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env, processors: SpanProcessor[] = []): NodeTracerProvider | null {
  const exporter = env['OTEL_TRACES_EXPORTER']?.trim() || 'none';
  if (!(TRACES_EXPORTERS as readonly string[]).includes(exporter)) {
    throw new ConfigError([`OTEL_TRACES_EXPORTER must be one of ${TRACES_EXPORTERS.join(', ')} (got "${exporter}")`]);
  }
  if (exporter === 'none' && processors.length === 0) {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    return null;
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env['OTEL_SERVICE_NAME']?.trim() || service }),
    spanProcessors: [...(exporter === 'otlp' ? [new BatchSpanProcessor(new OTLPTraceExporter())] : []), ...processors],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  activeProvider = provider;
  return provider;
}

let activeProvider: NodeTracerProvider | null = null;

/**
 * Sends the spans still waiting in the batch processor and stops tracing: the last thing a
 * service does on a graceful stop, so the spans of the work it finished are not lost with it.
 */
export async function flushTraces(): Promise<void> {
  const provider = activeProvider;
  activeProvider = null;
  await provider?.shutdown();
}

const tracer = (): Tracer => trace.getTracer('@mp/shared-telemetry');

/**
 * Headers for an internal HTTP call made while handling a request or a message: the current
 * `traceparent`, so the callee's server span (instrumentHttp) continues the caller's trace.
 * Empty outside any span. No auto-instrumentation package is installed, so clients add these.
 */
export function outgoingTraceHeaders(): Record<string, string> {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
}

/** Header carrier for the propagator: lowercase names, string values. */
export type TraceHeaders = Record<string, string | undefined>;

/** The `traceparent` of the span running now, for a message about to be written; undefined outside any span. */
export function currentTraceparent(): string | undefined {
  const span = currentTelemetryContext()?.span ?? trace.getActiveSpan();
  if (!span) return undefined;
  const carrier: TraceHeaders = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier['traceparent'];
}

/**
 * Runs `work` inside a new span whose parent is the trace context in `headers` (a new trace
 * when there is none), with the span and `fields` as the telemetry context, so the log lines
 * and the messages `work` writes carry them. A thrown error marks the span failed and is
 * rethrown; the span ends when `work` settles.
 */
export async function runInSpan<T>(
  name: string,
  kind: SpanKind,
  headers: TraceHeaders,
  fields: Omit<TelemetryContext, 'span'>,
  attributes: Record<string, string | number>,
  work: () => Promise<T>,
): Promise<T> {
  const { parent, span } = startSpan(name, kind, headers, attributes);
  try {
    return await enterSpan(parent, span, fields, work);
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
    throw error;
  } finally {
    span.end();
  }
}

/** Makes `span` the active span (OpenTelemetry's context) and the telemetry context's, for `work`. */
export function enterSpan<T>(parent: Context, span: Span, fields: Omit<TelemetryContext, 'span'>, work: () => T): T {
  return context.with(trace.setSpan(parent, span), () => runInTelemetryContext({ ...fields, span }, work));
}

/** A new span whose parent is the trace context in `headers`, not yet active. */
export function startSpan(name: string, kind: SpanKind, headers: TraceHeaders, attributes: Record<string, string | number>): { parent: Context; span: Span } {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  return { parent, span: tracer().startSpan(name, { kind, attributes }, parent) };
}
