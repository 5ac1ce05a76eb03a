import { IsOptional } from 'class-validator';
import { CreationPeriodAndCursorFilters, IsOneOf, IsWholeNumberBetween, RequestMessages } from '@mp/shared-util-validation';
import { WITHDRAWAL_STATUSES, type WithdrawalStatusView } from './withdrawal-view';

/** The filters of endpoint 12 (status, creation period, cursor); `limit` is added per transport. */
export class WithdrawalListFilterFieldsDto extends CreationPeriodAndCursorFilters {
  @IsOptional()
  @IsOneOf(WITHDRAWAL_STATUSES)
  status?: WithdrawalStatusView;
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
