import type { ApprovalDecisionRequest, ConversionRequest, DepositAdjustmentRequest, PlaceHoldRequest } from '@mp/contracts-ledger';
import {
  FieldRule,
  IsCalendarDay,
  INTERNAL_ID_PATTERN,
  IsIsoDateTime,
  IsKnownCurrency,
  IsMinorUnits,
  IsOneOf,
  IsPlainText,
  IsWholeNumberBetween,
  MatchesPattern,
  RequestMessages,
} from '@mp/shared-util-validation';
import { applyDecorators } from '@nestjs/common';
import { PathIdPipe } from '@mp/shared-nest-http';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, ValidateNested } from 'class-validator';

/**
 * The internal API's bodies and queries as request classes, validated by the shared request
 * pipe. The callers are other services and the gateway, which validated their own input;
 * anything malformed here is a bug on their side, answered 400 VALIDATION_ERROR with every
 * problem listed, and never reaches the decider or the database.
 *
 * The ledger keys accounts by merchant id without owning its format (the access context does):
 * it takes any id of printable characters, which is all its storage needs.
 */

const ID_ISSUE = 'must be 1 to 200 printable characters without spaces';
const CURRENCY_ISSUE = 'must be a supported currency code';
const TIMESTAMP_ISSUE = 'must be an RFC 3339 timestamp, e.g. 2026-01-31T00:00:00Z';

class HoldReferenceDto {
  @IsOneOf(['payment_order', 'withdrawal'], 'must be payment_order or withdrawal')
  kind!: 'payment_order' | 'withdrawal';

  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE)
  id!: string;
}

@RequestMessages({ invalid: 'The hold request is not valid' })
export class PlaceHoldRequestDto implements PlaceHoldRequest {
  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE)
  hold_id!: string;

  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE)
  merchant_id!: string;

  @IsKnownCurrency(CURRENCY_ISSUE)
  currency!: string;

  @IsMinorUnits('positive', 'currency')
  amount_minor!: string;

  @IsMinorUnits('non-negative', 'currency')
  fee_minor!: string;

  @IsObject({ message: 'must be an object with kind and id' })
  @ValidateNested()
  @Type(() => HoldReferenceDto)
  reference!: HoldReferenceDto;
}

@RequestMessages({ invalid: 'The deposit adjustment is not valid' })
export class DepositAdjustmentRequestDto implements DepositAdjustmentRequest {
  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE)
  adjustment_id!: string;

  @IsKnownCurrency(CURRENCY_ISSUE)
  currency!: string;

  @IsMinorUnits('non-zero', 'currency')
  amount_minor!: string;

  @IsPlainText(1_000)
  reason!: string;

  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE)
  operator_id!: string;
}

/** The rate is checked exactly by the domain's quote; here only that it is a short decimal-looking string. */
@RequestMessages({ invalid: 'The conversion is not valid' })
export class ConversionRequestDto implements ConversionRequest {
  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE)
  conversion_id!: string;

  @IsKnownCurrency(CURRENCY_ISSUE)
  from_currency!: string;

  @IsKnownCurrency(CURRENCY_ISSUE)
  to_currency!: string;

  @IsMinorUnits('positive', 'from_currency')
  amount_minor!: string;

  @MatchesPattern(/^[0-9.]{1,40}$/, 'must be a decimal string, e.g. "0.0108"')
  rate!: string;

  @IsPlainText(1_000)
  reason!: string;

  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE)
  operator_id!: string;
}

/** A second operator's decision on a request awaiting approval; a rejection says why. */
@RequestMessages({ invalid: 'The decision is not valid' })
export class ApprovalDecisionRequestDto implements ApprovalDecisionRequest {
  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE)
  operator_id!: string;

  @IsOptional()
  @IsPlainText(1_000)
  reason?: string;

  @IsOptional()
  @IsArray({ message: 'must be a list of operator ids' })
  @ArrayMaxSize(1_000, { message: 'must name at most 1000 operators' })
  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE, { each: true })
  related_operator_ids?: string[];
}

/** An empty query parameter (`?currency=`) is the same as an absent one. */
const EmptyIsAbsent = () => Transform(({ value }) => (value === '' ? undefined : value)) as PropertyDecorator;

/** `to` is after `from` when both are given. */
const AfterFrom = () =>
  FieldRule('afterFrom', (value, args) => {
    const from = (args.object as { from?: unknown }).from;
    if (typeof value !== 'string' || typeof from !== 'string') return null;
    return Date.parse(value) > Date.parse(from) ? null : 'must be after from';
  });

/** Statements and exports may be narrowed to one currency. */
class CurrencyFilter {
  @EmptyIsAbsent()
  @IsOptional()
  @IsKnownCurrency(CURRENCY_ISSUE)
  currency?: string;
}

/** A page size from 1 to `max` in a query string; absent or empty takes the route's default. */
function OptionalPageLimit(max: number): PropertyDecorator {
  return applyDecorators(EmptyIsAbsent(), IsOptional(), IsWholeNumberBetween(1, max, 'query'));
}

/** The opaque cursor a previous page returned; absent or empty starts at the beginning. */
function OptionalPageCursor(): PropertyDecorator {
  return applyDecorators(EmptyIsAbsent(), IsOptional(), MatchesPattern(/^[A-Za-z0-9_-]{1,200}$/, 'must be a cursor this API returned'));
}

/** A statement page: optionally a period [from, to), then by cursor. */
@RequestMessages({ invalid: 'The entries query is not valid' })
export class LedgerEntriesQueryDto extends CurrencyFilter {
  @EmptyIsAbsent()
  @IsOptional()
  @IsIsoDateTime(TIMESTAMP_ISSUE)
  from?: string;

  @EmptyIsAbsent()
  @IsOptional()
  @IsIsoDateTime(TIMESTAMP_ISSUE)
  @AfterFrom()
  to?: string;

  @OptionalPageLimit(200)
  limit?: string;

  @OptionalPageCursor()
  cursor?: string;
}

/** An export: both bounds are required, the start of the period (inclusive) and its end (exclusive). */
@RequestMessages({ invalid: 'The reconciliation period is not valid' })
export class ReconciliationQueryDto extends CurrencyFilter {
  @EmptyIsAbsent()
  @IsIsoDateTime(TIMESTAMP_ISSUE)
  from!: string;

  @EmptyIsAbsent()
  @IsIsoDateTime(TIMESTAMP_ISSUE)
  @AfterFrom()
  to!: string;
}

/** One UTC day of one currency's entries (the merchant's reconciliation report), paged. */
@RequestMessages({ invalid: 'The day query is not valid' })
export class DayEntriesQueryDto {
  @IsCalendarDay()
  date!: string;

  @IsKnownCurrency(CURRENCY_ISSUE)
  currency!: string;

  @OptionalPageLimit(1_000)
  limit?: string;

  @OptionalPageCursor()
  cursor?: string;
}

/** The merchant's ledger anchor at the end of one UTC day in one currency (the reconciliation report's). */
@RequestMessages({ invalid: 'The anchor query is not valid' })
export class LedgerAnchorQueryDto {
  @IsCalendarDay()
  date!: string;

  @IsKnownCurrency(CURRENCY_ISSUE)
  currency!: string;
}

/** A UTC day whose opening and closing balances are asked for. */
@RequestMessages({ invalid: 'The day query is not valid' })
export class EndOfDayQueryDto {
  @IsCalendarDay()
  date!: string;
}

/** Requests awaiting (or past) approval, oldest first. */
@RequestMessages({ invalid: 'The approvals query is not valid' })
export class ApprovalsQueryDto {
  @EmptyIsAbsent()
  @IsOptional()
  @IsOneOf(['pending', 'approved', 'rejected', 'expired'], 'must be pending, approved, rejected or expired')
  status?: 'pending' | 'approved' | 'rejected' | 'expired';

  @EmptyIsAbsent()
  @IsOptional()
  @MatchesPattern(INTERNAL_ID_PATTERN, ID_ISSUE)
  merchant_id?: string;

  @EmptyIsAbsent()
  @IsOptional()
  @IsWholeNumberBetween(1, 200, 'query')
  limit?: string;
}

/** An approval id in a path; one that cannot be an id is not found. */
export const ApprovalIdParam = new PathIdPipe(INTERNAL_ID_PATTERN, 'NOT_FOUND', (id) => `No approval request ${id}`);

/** A merchant id in a path; one that cannot be an id has no ledger (404). */
export const LedgerMerchantIdParam = new PathIdPipe(INTERNAL_ID_PATTERN, 'NOT_FOUND', (id) => `No merchant ${id}`);
