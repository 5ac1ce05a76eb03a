/**
 * Goal: a graceful stop does not lose the spans of the work the service finished: spans wait in
 * a batch processor, and flushTraces (the last step of the shutdown) sends them.
 * Method: the real tracer provider with a batch processor whose timer never fires in the test,
 * exporting to a list (sdk-trace-base's InMemorySpanExporter forgets its spans on shutdown).
 */
import { SpanKind, trace } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { flushTraces, outgoingTraceHeaders, runInSpan, startTracing } from './tracing';

describe('flushTraces', () => {
  it('sends the spans still waiting in the batch processor', async () => {
    const exported: ReadableSpan[] = [];
    const exporter: SpanExporter = {
      export: (spans, done) => {
        exported.push(...spans);
        done({ code: ExportResultCode.SUCCESS });
      },
      shutdown: async () => undefined,
    };
    startTracing('tracing-spec', {}, [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 3_600_000, maxExportBatchSize: 512 })]);
    trace.getTracer('tracing-spec').startSpan('finished work', { kind: SpanKind.INTERNAL }).end();
    expect(exported).toHaveLength(0);

    await flushTraces();
    expect(exported.map((span) => span.name)).toEqual(['finished work']);
    // A second call (a second signal) has nothing left to do and does not throw.
    await expect(flushTraces()).resolves.toBeUndefined();
  });
});

describe('outgoingTraceHeaders', () => {
  it('carries the running span to an internal HTTP call, and nothing outside any span', async () => {
    startTracing('tracing-spec', {});
    expect(outgoingTraceHeaders()).toEqual({});
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const headers = await runInSpan('GET /internal', SpanKind.SERVER, { traceparent: parent }, { requestId: 'req-1' }, {}, async () => outgoingTraceHeaders());
    // The same trace as the incoming request, a span of its own.
    expect(headers.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(headers.traceparent).not.toBe(parent);
    await flushTraces();
  });
});
