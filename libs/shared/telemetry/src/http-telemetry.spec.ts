import { Logger } from '@nestjs/common';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fastify, { type FastifyInstance } from 'fastify';
import { instrumentHttp } from './http-telemetry';
import { serviceLogger } from './service-logger';
import { currentTelemetryContext } from './telemetry-context';
import { currentTraceparent, startTracing } from './tracing';

const spans = new InMemorySpanExporter();
const provider = startTracing('http-test', {}, [new SimpleSpanProcessor(spans)]);

describe('instrumentHttp', () => {
  let app: FastifyInstance;
  const accessLines: unknown[] = [];

  beforeAll(async () => {
    Logger.overrideLogger({ log: (message: unknown) => accessLines.push(message), warn: () => undefined, error: () => undefined });
    app = fastify();
    app.addHook('onRequest', async (request) => void ((request as { requestId?: string }).requestId = 'req_gateway'));
    instrumentHttp(app, { requestIdOf: (request) => (request as { requestId?: string }).requestId, requestIdIsCorrelationId: true });
    // A body read from the socket: the handler runs after parsing, where the hook's context would otherwise be lost.
    app.post('/orders/:id', async () => ({ context: { ...currentTelemetryContext(), span: undefined }, traceparent: currentTraceparent() }));
    app.get('/health', async () => ({ ok: true }));
    await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
    await provider?.shutdown();
    Logger.overrideLogger(serviceLogger('json'));
  });

  it("gives the handler the request and correlation ids and a server span continuing the caller's trace", async () => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const { port } = app.server.address() as { port: number };
    const answer = await fetch(`http://127.0.0.1:${port}/orders/A-1?token=secret`, {
      method: 'POST',
      body: JSON.stringify({ amount: 5 }),
      headers: { 'content-type': 'application/json', traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
    });
    const body = (await answer.json()) as { context: { requestId: string; correlationId: string }; traceparent: string };
    expect(body.context).toEqual({ requestId: 'req_gateway', correlationId: 'req_gateway' });
    expect(body.traceparent).toMatch(new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-01$`));
    const [span] = spans.getFinishedSpans().filter((finished) => finished.kind === SpanKind.SERVER);
    expect(span.name).toBe('POST /orders/:id');
    expect(span.spanContext().traceId).toBe(callerTrace);
    expect(span.attributes['http.response.status_code']).toBe(200);
    // One access line: the route pattern, never the raw URL with its query.
    expect(accessLines).toEqual([expect.objectContaining({ message: 'request completed', method: 'POST', route: '/orders/:id', status_code: 200 })]);
    expect(JSON.stringify(accessLines)).not.toContain('secret');
  });

  it('writes no access line for health probes', async () => {
    accessLines.length = 0;
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect(accessLines).toEqual([]);
  });
});
