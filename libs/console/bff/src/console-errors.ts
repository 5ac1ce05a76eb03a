import { httpStatusOf, publicErrorBody, type ErrorCode, type ErrorDetail } from '@mp/shared-util-errors';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type { ErrorDetail };

/**
 * The console's own answers in the decisions' error model. Its routes are Fastify routes beside
 * Nest's (the relay must pass bodies and answers through untouched), so Nest's exception filter
 * does not see them: this is the same body, with the request id the gateway's hook gave.
 */
export async function sendConsoleError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  details: ErrorDetail[] = [],
): Promise<void> {
  const requestId = (request as FastifyRequest & { requestId?: string }).requestId ?? null;
  await reply
    .status(httpStatusOf(code))
    .type('application/json')
    .send(JSON.stringify(publicErrorBody(code, message, requestId, details)));
}
