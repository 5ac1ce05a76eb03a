import { IsOptional } from 'class-validator';
import { IsIsoDateTime, MatchesPattern, NotAfter } from './decorators';

/** What every list's `next_cursor` looks like; anything else is refused before it reaches a query. */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * The filters every list of the API shares besides `status` and `limit` (docs/api/states.md "Lists"):
 * a creation period and a cursor. Each list adds its own statuses, and `limit` per transport
 * (a JSON number in a body, digits in a query).
 */
export class CreationPeriodAndCursorFilters {
  @IsOptional()
  @IsIsoDateTime()
  @NotAfter('created_to', 'must not be after created_to')
  created_from?: string;

  @IsOptional()
  @IsIsoDateTime()
  created_to?: string;

  @IsOptional()
  @MatchesPattern(CURSOR_PATTERN, 'is not a cursor this API returned')
  cursor?: string;
}
