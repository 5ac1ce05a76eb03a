import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { DomainError, httpStatusOf, internalErrorBody, isErrorCode } from '@mp/shared-util-errors';
import type { FastifyReply } from 'fastify';

/**
 * Error bodies of the services' internal HTTP APIs: `{code, message, details}` with the status
 * of the code, so the gateway can pass a DomainError through unchanged. Unexpected errors are
 * logged and answered 500 without internals.
 */
@Catch()
export class InternalErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('InternalApi');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof DomainError) {
      void reply.status(httpStatusOf(exception.code)).send(exception.toDescription());
      return;
    }
    if (exception instanceof HttpException) {
      const response = exception.getResponse() as { code?: unknown; message?: unknown };
      const code = isErrorCode(response?.code) ? response.code : exception.getStatus() === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR';
      void reply.status(exception.getStatus()).send(internalErrorBody(code, String(response?.message ?? exception.message)));
      return;
    }
    const fastifyStatus = (exception as { statusCode?: number })?.statusCode;
    if (fastifyStatus && fastifyStatus >= 400 && fastifyStatus < 500) {
      void reply.status(fastifyStatus).send(internalErrorBody(fastifyStatus === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_ERROR', (exception as Error).message));
      return;
    }
    this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    void reply.status(500).send(internalErrorBody('INTERNAL_ERROR', 'internal error'));
  }
}
