import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { BackofficeApiErrorResponses } from './error.response';

/** The security scheme's name in the agent and back-office descriptions: `Authorization: Bearer <token>`. */
export const BACKOFFICE_BEARER_SCHEME = 'bearer';

/**
 * The description of an agent or operator controller: its tag, the Bearer token every route
 * needs and the errors any such request may get. Documentation only: the controller still
 * names its guard and roles itself.
 */
export function BackofficeApiDocs(tag: string): ClassDecorator {
  return applyDecorators(ApiTags(tag), ApiBearerAuth(BACKOFFICE_BEARER_SCHEME), BackofficeApiErrorResponses());
}
