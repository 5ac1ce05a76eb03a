import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { SpanKind, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { enterSpan, startSpan } from './tracing';
import type { TelemetryContext } from './telemetry-context';

export interface HttpTelemetryOptions {
  /**
   * The request id the app already gave the request (the gateway's, set by an earlier
   * onRequest hook); otherwise a valid incoming `x-request-id`, else a new one.
   */
  requestIdOf?: (request: FastifyRequest) => string | undefined;
  /** The gateway: the request id is also the correlation id of everything the request causes. */
  requestIdIsCorrelationId?: boolean;
}

interface RequestTelemetry {
  parent: Context;
  span: Span;
  fields: Omit<TelemetryContext, 'span'>;
  startedAt: bigint;
}

const TELEMETRY = Symbol('requestTelemetry');
type InstrumentedRequest = FastifyRequest & { [TELEMETRY]?: RequestTelemetry };

const INCOMING_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Probes and scrapes come every few seconds and say nothing about payments: no access line for them. */
const UNLOGGED_ROUTES = /^\/(health|metrics)(\/|$)/;

/**
 * A span and a telemetry context for every HTTP request, and one access line when it is
 * answered (method, route pattern, status, duration; the raw URL is never logged, payer-page
 * paths carry tokens). Fastify hooks rather than a Nest middleware or pino-http: they see every
 * request, 404s and body-parser errors included. The context is entered again after the body
 * is parsed, in case a content parser continues outside the onRequest hook's async context (the
 * reason @fastify/request-context advises preValidation; Fastify 5's own parsers keep it).
 */
export function instrumentHttp(fastify: FastifyInstance, options: HttpTelemetryOptions = {}): void {
  const logger = new Logger('HTTP');
  fastify.addHook('onRequest', (request: InstrumentedRequest, _reply, done) => {
    const header = request.headers['x-request-id'];
    const requestId =
      options.requestIdOf?.(request) ?? (typeof header === 'string' && INCOMING_REQUEST_ID.test(header) ? header : `req_${randomBytes(12).toString('hex')}`);
    const route = request.routeOptions.url ?? 'unmatched';
    const { parent, span } = startSpan(`${request.method} ${route}`, SpanKind.SERVER, request.headers as Record<string, string | undefined>, {
      'http.request.method': request.method,
      'http.route': route,
    });
    const telemetry: RequestTelemetry = {
      parent,
      span,
      fields: { requestId, ...(options.requestIdIsCorrelationId ? { correlationId: requestId } : {}) },
      startedAt: process.hrtime.bigint(),
    };
    request[TELEMETRY] = telemetry;
    enterSpan(parent, span, telemetry.fields, done);
  });
  fastify.addHook('preValidation', (request: InstrumentedRequest, _reply, done) => {
    const telemetry = request[TELEMETRY];
    if (telemetry) enterSpan(telemetry.parent, telemetry.span, telemetry.fields, done);
    else done();
  });
  fastify.addHook('onResponse', (request: InstrumentedRequest, reply, done) => {
    const telemetry = request[TELEMETRY];
    if (telemetry) {
      const status = reply.statusCode;
      telemetry.span.setAttribute('http.response.status_code', status);
      if (status >= 500) telemetry.span.setStatus({ code: SpanStatusCode.ERROR });
      telemetry.span.end();
      const durationMs = Number(process.hrtime.bigint() - telemetry.startedAt) / 1e6;
      const route = request.routeOptions.url ?? 'unmatched';
      if (!UNLOGGED_ROUTES.test(route))
        enterSpan(telemetry.parent, telemetry.span, telemetry.fields, () =>
          logger.log({ message: 'request completed', method: request.method, route, status_code: status, duration_ms: Math.round(durationMs * 10) / 10 }),
        );
    }
    done();
  });
}
