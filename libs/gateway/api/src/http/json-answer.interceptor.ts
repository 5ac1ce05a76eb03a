import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { map, type Observable } from 'rxjs';
import { stringifyResponse } from './json-body';

/**
 * The one place a handler's return value becomes the answer, for the merchant API and the back
 * office alike: JSON with money as JSON numbers of the same digits (stringifyResponse), so
 * handlers return plain values and their OpenAPI response classes describe exactly what goes
 * out. The status is the route's (@HttpCode, else 201 for POST and 200 otherwise). Handlers that
 * send a file keep @Res().
 */
@Injectable()
export class JsonAnswerInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(
      map((body: unknown) => {
        if (reply.sent) return body;
        void reply.type('application/json');
        return stringifyResponse(body);
      }),
    );
  }
}
