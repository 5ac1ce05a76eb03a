import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { REQUEST_BODY_BYTES_MAX } from '../gateway-settings';
import { newRequestId, REQUEST_ID_HEADER } from './request-id';

/**
 * HTTP server settings the API contract depends on:
 * - every body is kept as raw bytes (signatures are over the exact bytes, spec 5.4) and parsed
 *   only after the signature check;
 * - the size limit applies while the body is read, before any HMAC work;
 * - every response carries a request id.
 */
export function configureGatewayHttp(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: REQUEST_BODY_BYTES_MAX }, (_request, body, done) => done(null, body));
  fastify.addHook('onRequest', async (request, reply) => {
    const requestId = newRequestId();
    (request as GatewayRequest).requestId = requestId;
    void reply.header(REQUEST_ID_HEADER, requestId);
  });
}

/**
 * Server options: the body limit, and errors the router raises before any handler runs (a
 * path with malformed percent-encoding) answered in the same error body as everything else.
 */
export function gatewayFastifyOptions(): FastifyServerOptions {
  return {
    bodyLimit: REQUEST_BODY_BYTES_MAX,
    // No automatic HEAD twins of GET routes: a link preview's HEAD on the payer page must not
    // count as the payer opening it (which assigns an agent).
    exposeHeadRoutes: false,
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const requestId = newRequestId();
      const body = {
        error: { code: 'VALIDATION_ERROR', message: 'The request path is not valid percent-encoded UTF-8', details: [{ field: 'path', issue: error.message }] },
        request_id: requestId,
      };
      void reply.header(REQUEST_ID_HEADER, requestId).status(400).type('application/json').send(JSON.stringify(body));
    },
  };
}
