/**
 * Goal: trace context follows a request into the calls and messages it causes, recorded spans
 * are not lost on a graceful stop, and without an exporter nothing is recorded at all while a
 * caller's trace context is still passed on.
 * Method: the real tracer provider with a batch processor whose timer never fires in the test,
 * exporting to a list (sdk-trace-base's InMemorySpanExporter forgets its spans on shutdown). The
 * OpenTelemetry API keeps the first provider registered in a process, so the unrecorded case
 * runs first.
 */
import { SpanKind } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { flushTraces, outgoingTraceHeaders, runInSpan, startTracing } from './tracing';

const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const headersInsideRequest = () =>
  runInSpan('GET /internal', SpanKind.SERVER, { traceparent: parent }, { requestId: 'req-1' }, {}, async () => outgoingTraceHeaders());

describe('tracing', () => {
  it("passes a caller's trace context on unchanged when spans are not recorded (no exporter)", async () => {
    expect(startTracing('tracing-spec', {})).toBeNull();
    expect(await headersInsideRequest()).toEqual({ traceparent: parent });
    expect(await runInSpan('GET /internal', SpanKind.SERVER, {}, {}, {}, async () => outgoingTraceHeaders())).toEqual({});
  });

  it('carries the running span to an internal HTTP call, and flushTraces sends the spans still waiting in the batch processor', async () => {
    const exported: ReadableSpan[] = [];
    const exporter: SpanExporter = {
      export: (spans, done) => {
        exported.push(...spans);
        done({ code: ExportResultCode.SUCCESS });
      },
      shutdown: async () => undefined,
    };
    startTracing('tracing-spec', {}, [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 3_600_000, maxExportBatchSize: 512 })]);
    expect(outgoingTraceHeaders()).toEqual({});
    const headers = await headersInsideRequest();
    // The same trace as the incoming request, a span of its own.
    expect(headers.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(headers.traceparent).not.toBe(parent);
    expect(exported).toHaveLength(0);

    await flushTraces();
    expect(exported.map((span) => span.name)).toEqual(['GET /internal']);
    // A second call (a second signal) has nothing left to do and does not throw.
    await expect(flushTraces()).resolves.toBeUndefined();
  });
});
