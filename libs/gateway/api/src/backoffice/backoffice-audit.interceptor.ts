import { HttpException, Inject, Injectable, Logger, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { BackofficeAuditStore } from '@mp/access-infrastructure';
import { DomainError, httpStatusOf } from '@mp/shared-util-errors';
import type { Clock } from '@mp/shared-util-clock';
import type { FastifyReply } from 'fastify';
import { catchError, concatMap, from, type Observable } from 'rxjs';
import { CLOCK, REQUEST_BODY_BYTES_MAX } from '../gateway-settings';
import type { BackofficeRequest } from './backoffice.guard';

/** Reads change nothing; every other method on the back-office API is an action and is audited. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const REASON_LENGTH_MAX = 1_000;

/**
 * Records every back-office action, done or refused, with the actor from the verified bearer
 * credential (the guard put it on the request; no body names an actor). Registered for every
 * route, it does nothing where no back-office principal authenticated, so an action added
 * later is audited without anyone remembering to. Written after the action: an entry names
 * what happened (status, error code), and a failed write is logged loudly rather than undoing
 * an action other services already took.
 */
@Injectable()
export class BackofficeAuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('BackofficeAudit');

  constructor(
    @Inject(BackofficeAuditStore) private readonly audit: BackofficeAuditStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<BackofficeRequest>();
    if (!request.principal || READ_METHODS.has(request.method)) return next.handle();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(
      concatMap((value: unknown) => from(this.record(request, reply.statusCode, null).then(() => value))),
      catchError((error: unknown) =>
        from(this.record(request, statusOf(error), error instanceof DomainError ? error.code : null).then(() => Promise.reject(error))),
      ),
    );
  }

  private async record(request: BackofficeRequest, statusCode: number, errorCode: string | null): Promise<void> {
    const principal = request.principal;
    if (!principal) return;
    const params = (request.params ?? {}) as Record<string, unknown>;
    try {
      await this.audit.record({
        principal,
        action: `${request.method} ${request.routeOptions.url ?? request.url}`,
        path: request.url.split('?')[0] ?? request.url,
        merchantId: typeof params['merchantId'] === 'string' ? params['merchantId'] : null,
        statusCode,
        errorCode,
        reason: reasonOf(request.body),
        details: request.auditDetails ?? null,
        occurredAt: this.clock.now(),
      });
    } catch (error) {
      this.logger.error(`back-office action ${request.method} ${request.url} by ${principal.credentialId} was not audited: ${String(error)}`);
    }
  }
}

function statusOf(error: unknown): number {
  if (error instanceof DomainError) return httpStatusOf(error.code);
  if (error instanceof HttpException) return error.getStatus();
  return 500;
}

/** The `reason` a JSON body gives (suspensions, adjustments, withdrawal decisions), for the trail. */
function reasonOf(body: unknown): string | null {
  if (!Buffer.isBuffer(body) || body.length === 0 || body.length > REQUEST_BODY_BYTES_MAX) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const reason = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)['reason'] : undefined;
    return typeof reason === 'string' ? reason.slice(0, REASON_LENGTH_MAX) : null;
  } catch {
    return null;
  }
}
