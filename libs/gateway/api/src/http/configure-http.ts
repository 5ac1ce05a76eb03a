import { DRAINING_HTTP_OPTIONS } from '@mp/shared-health';
import { publicErrorBody } from '@mp/shared-util-errors';
import { errorCodes, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { BODY_BYTES_MAX_BY_ROUTE, RECEIPT_FILE_ROUTES, REQUEST_BODY_BYTES_MAX } from '../gateway-settings';
import { newRequestId, REQUEST_ID_HEADER } from './request-id';
import { securityHeadersFor, TransportSecurityRule } from './transport-security';

/**
 * HTTP server settings the API contract depends on:
 * - every body is kept as raw bytes (signatures are over the exact bytes, spec 5.4) and parsed
 *   only after the signature check;
 * - the size limit applies while the body is read, before any HMAC work;
 * - every response carries a request id and the security headers.
 */
export function configureGatewayHttp(fastify: FastifyInstance, options: GatewayHttpOptions = {}): void {
  const transportSecurity = new TransportSecurityRule(options.trustedProxies);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: REQUEST_BODY_BYTES_MAX }, (_request, body, done) => done(null, body));
  // A receipt upload's file is handed to its handler as the request stream, which passes it on
  // to payments within the route's limit (streamWithinLimit): a 5 MiB file is never held whole.
  // The console's agent relay passes such a file on to that route unread. Nothing else takes a
  // file, so these types elsewhere are 415.
  fastify.addContentTypeParser(RECEIPT_UPLOAD_CONTENT_TYPES, (request, payload, done) => {
    if (RECEIPT_FILE_ROUTES.has(`${request.method} ${request.routeOptions.url}`)) done(null, payload);
    else done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(String(request.headers['content-type'])), undefined);
  });
  // A route's own bodyLimit wins over the parser's: only the routes that carry a receipt may send
  // more. Fastify counts the bytes as they arrive and stops reading at the limit, so no route
  // holds more than its limit in memory. Registered before Nest adds its routes (at init).
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const limit = methods.map((method) => BODY_BYTES_MAX_BY_ROUTE.get(`${method} ${route.url}`)).find((bytes) => bytes !== undefined);
    if (limit !== undefined) route.bodyLimit = limit;
  });
  // Set before routing, so every answer carries them: successes, guard and filter errors, 404s
  // for unknown routes, and 413/415 from the body parser (errors keep headers already set).
  fastify.addHook('onRequest', async (request, reply) => {
    const requestId = newRequestId();
    (request as GatewayRequest).requestId = requestId;
    void reply.header(REQUEST_ID_HEADER, requestId).headers(securityHeadersFor(transportSecurity.cameOverTls(request.raw)));
  });
}

/** What a receipt file may be sent as (tools/backoffice.mjs sends application/octet-stream). */
const RECEIPT_UPLOAD_CONTENT_TYPES = ['application/octet-stream', 'application/pdf', 'image/png', 'image/jpeg'];

export interface GatewayHttpOptions {
  /**
   * Addresses or CIDR ranges of the reverse proxies in front of the gateway
   * (GATEWAY_TRUSTED_PROXIES). Only a request whose direct peer is one of them may tell, in
   * `X-Forwarded-Proto`, that it came over TLS.
   */
  trustedProxies?: readonly string[];
}

/**
 * Server options: the body limit, and errors the router raises before any handler runs (a
 * path with malformed percent-encoding) answered in the same error body as everything else.
 */
export function gatewayFastifyOptions(options: GatewayHttpOptions = {}): FastifyServerOptions {
  // The router answers an undecodable path before any hook runs, so it applies the same rule.
  const transportSecurity = new TransportSecurityRule(options.trustedProxies);
  return {
    bodyLimit: REQUEST_BODY_BYTES_MAX,
    // No automatic HEAD twins of GET routes: every route is one that is declared. (Views of the
    // payer page change nothing either way; only its form posts do.)
    exposeHeadRoutes: false,
    // A request that reaches a replica while it drains is answered in full (DRAINING_HTTP_OPTIONS):
    // Fastify's fixed 503 would have no request id, no error-model body and no Retry-After.
    ...DRAINING_HTTP_OPTIONS,
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const requestId = newRequestId();
      // A path segment longer than any route parameter may be (maxParamLength) names nothing, as a
      // malformed id does for the path-id pipes: not found, not "invalid encoding".
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const body = tooLong
        ? publicErrorBody('NOT_FOUND', 'No such resource: a path segment is longer than any identifier', requestId)
        : publicErrorBody('VALIDATION_ERROR', 'The request path is not valid percent-encoded UTF-8', requestId, [{ field: 'path', issue: error.message }]);
      void reply
        .header(REQUEST_ID_HEADER, requestId)
        .headers(securityHeadersFor(transportSecurity.cameOverTls(request.raw)))
        .status(tooLong ? 404 : 400)
        .type('application/json')
        .send(JSON.stringify(body));
    },
  };
}
