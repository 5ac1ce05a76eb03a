/**
 * Goal: a graceful stop does not lose the spans of the work the service finished: spans wait in
 * a batch processor, and flushTraces (the last step of the shutdown) sends them.
 * Method: the real tracer provider with a batch processor whose timer never fires in the test,
 * exporting to a list (sdk-trace-base's InMemorySpanExporter forgets its spans on shutdown).
 */
import { SpanKind, trace } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { flushTraces, startTracing } from './tracing';

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
