import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { JsonAnswerInterceptor } from '../http/json-answer.interceptor';
import { BackofficeApiErrorResponses } from './error.response';

/** The security scheme's name in the agent and back-office descriptions: `Authorization: Bearer <token>`. */
export const BACKOFFICE_BEARER_SCHEME = 'bearer';

/**
 * An agent or operator controller: its handlers return values, which JsonAnswerInterceptor
 * sends as JSON (as the merchant API's do), and its description: its tag, the Bearer token every
 * route needs and the errors any such request may get. The controller still names its guard and
 * roles itself.
 */
export function BackofficeApiDocs(tag: string): ClassDecorator {
  return applyDecorators(UseInterceptors(JsonAnswerInterceptor), ApiTags(tag), ApiBearerAuth(BACKOFFICE_BEARER_SCHEME), BackofficeApiErrorResponses());
}
