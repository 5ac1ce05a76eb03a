import type { FastifyInstance } from 'fastify';
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
