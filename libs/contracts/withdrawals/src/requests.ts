import { IsOptional } from 'class-validator';
import { IsIsoDateTime, IsOneOf, IsWholeNumberBetween, MatchesPattern, NotAfter, RequestMessages } from '@mp/shared-util-validation';
import { WITHDRAWAL_STATUSES, type WithdrawalStatusView } from './withdrawal-view';

const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

/** The filters of endpoint 12 (status, creation period, cursor); `limit` is added per transport. */
export class WithdrawalListFilterFieldsDto {
  @IsOptional()
  @IsOneOf(WITHDRAWAL_STATUSES)
  status?: WithdrawalStatusView;

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

/** The filters as the withdrawals service's query parameters: `limit` is a string of digits there. */
@RequestMessages({ invalid: 'The list filters are not valid', unknownField: 'is not a filter; use status, created_from, created_to, limit, cursor' })
export class WithdrawalListQueryDto extends WithdrawalListFilterFieldsDto {
  @IsOptional()
  @IsWholeNumberBetween(1, 100, 'query')
  limit?: string;
}

/** Operators' stuck list: PENDING for longer than this many seconds (default 900, at most 30 days). */
@RequestMessages({ invalid: 'The query is not valid' })
export class StuckWithdrawalsQueryDto {
  @IsOptional()
  @IsWholeNumberBetween(0, 30 * 86_400, 'query')
  older_than_seconds?: string;
}
