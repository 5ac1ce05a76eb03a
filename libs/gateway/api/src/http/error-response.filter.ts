import { Catch, HttpException, Logger, NotFoundException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { classifyError } from '@mp/shared-messaging';
import { DomainError, httpStatusOf, isErrorCode, publicErrorAnswer, publicErrorBody, type ErrorCode, type PublicErrorBody } from '@mp/shared-util-errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bodyLimitExceededMessage, keepReadingRefusedBody } from './refused-body';
import { newRequestId, REQUEST_ID_HEADER } from './request-id';

/** Fastify's own errors for things the client sent, in the vocabulary of docs/api/errors.md. */
const FASTIFY_ERROR_CODES: ReadonlyMap<string, ErrorCode> = new Map<string, ErrorCode>([
  ['FST_ERR_CTP_BODY_TOO_LARGE', 'PAYLOAD_TOO_LARGE'],
  ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 'UNSUPPORTED_MEDIA_TYPE'],
  ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 'VALIDATION_ERROR'],
  ['FST_ERR_CTP_EMPTY_JSON_BODY', 'VALIDATION_ERROR'],
  ['FST_ERR_CTP_INVALID_JSON_BODY', 'VALIDATION_ERROR'],
]);

const HTTP_EXCEPTION_CODES: ReadonlyMap<number, ErrorCode> = new Map<number, ErrorCode>([
  [404, 'NOT_FOUND'],
  [405, 'METHOD_NOT_ALLOWED'],
  [413, 'PAYLOAD_TOO_LARGE'],
  [415, 'UNSUPPORTED_MEDIA_TYPE'],
]);

/** The methods routes are declared with; a path that has some of them answers the others with 405. */
const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const RETRY_AFTER_SECONDS_BY_CODE: Partial<Record<ErrorCode, number>> = { SERVICE_UNAVAILABLE: 1, RATE_LIMITED: 1 };

/**
 * The one place where errors become HTTP responses, in the single body shape of docs/api/errors.md:
 * `{"error": {"code", "message", "details"}, "request_id"}`. A dependency out of reach (the
 * messaging port's transient errors: connection failures, PostgreSQL shutting down) is a 503 with
 * Retry-After; anything else unexpected is logged and answered as a 500 without internals.
 */
@Catch()
export class ErrorResponseFilter implements ExceptionFilter {
  private readonly logger = new Logger('ErrorResponse');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest & { requestId?: string }>();
    const requestId = request.requestId ?? newRequestId();
    const { status, body, allow } = this.describe(exception, requestId, request);
    const retryAfter = RETRY_AFTER_SECONDS_BY_CODE[body.error.code];
    // A rate limit sets its own Retry-After (the seconds until a token is back).
    if (retryAfter !== undefined && !reply.hasHeader('retry-after')) void reply.header('retry-after', String(retryAfter));
    if (allow) void reply.header('allow', allow);
    if (body.error.code === 'PAYLOAD_TOO_LARGE' || body.error.code === 'UNSUPPORTED_MEDIA_TYPE') keepReadingRefusedBody(request.raw, reply);
    void reply.header(REQUEST_ID_HEADER, requestId).status(status).type('application/json').send(JSON.stringify(body));
  }

  private describe(exception: unknown, requestId: string, request: FastifyRequest): { status: number; body: PublicErrorBody; allow?: string } {
    if (exception instanceof DomainError) {
      return publicErrorAnswer(exception, requestId);
    }
    const fastifyCode = FASTIFY_ERROR_CODES.get(String((exception as { code?: unknown })?.code));
    if (fastifyCode) {
      const message = fastifyCode === 'PAYLOAD_TOO_LARGE' ? bodyLimitMessage(request) : (exception as Error).message;
      return { status: httpStatusOf(fastifyCode), body: publicErrorBody(fastifyCode, message, requestId) };
    }
    const allowed = exception instanceof NotFoundException && request.is404 ? allowedMethodsOf(request) : [];
    if (allowed.length > 0) {
      const message = `${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${allowed.join(', ')}`;
      return { status: 405, body: publicErrorBody('METHOD_NOT_ALLOWED', message, requestId), allow: allowed.join(', ') };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      // Nest hands Fastify's body-parser errors (413, 415) over as HttpExceptions of their status.
      const code: ErrorCode = HTTP_EXCEPTION_CODES.get(status) ?? (status < 500 ? 'VALIDATION_ERROR' : 'INTERNAL_ERROR');
      const response = exception.getResponse() as { code?: unknown; message?: unknown };
      const knownCode = isErrorCode(response?.code) ? response.code : code;
      const message =
        status === 404 && knownCode === 'NOT_FOUND'
          ? `No route ${request.method} ${request.url.split('?')[0]}`
          : knownCode === 'PAYLOAD_TOO_LARGE'
            ? bodyLimitMessage(request)
            : String(response?.message ?? exception.message);
      return { status: httpStatusOf(knownCode), body: publicErrorBody(knownCode, message, requestId) };
    }
    if (classifyError(exception) === 'transient') {
      // The gateway's own PostgreSQL out of reach (a restart, dropped connections, a pool that
      // cannot connect in time): the request may be sent again, which is what 503 says.
      this.logger.warn(`request ${requestId} found a dependency unavailable: ${exception instanceof Error ? exception.message : String(exception)}`);
      return { status: 503, body: publicErrorBody('SERVICE_UNAVAILABLE', 'A service the platform needs is unavailable; retry shortly', requestId) };
    }
    this.logger.error(`request ${requestId} failed: ${exception instanceof Error ? exception.stack : String(exception)}`);
    return { status: 500, body: publicErrorBody('INTERNAL_ERROR', 'An internal error occurred; it has been logged', requestId) };
  }
}

/** The methods declared for the request's path, when its own method is not one of them (an unknown path has none). */
function allowedMethodsOf(request: FastifyRequest): string[] {
  const url = request.url.split('?')[0] ?? '';
  return ROUTE_METHODS.filter((method) => request.server.findRoute({ method, url }) !== null);
}

/** The route's own limit, so a client learns what it may send (receipts and disputes have larger ones). */
function bodyLimitMessage(request: FastifyRequest): string {
  return bodyLimitExceededMessage(request.routeOptions.bodyLimit);
}
