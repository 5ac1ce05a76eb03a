import { Type } from 'class-transformer';
import { ArrayNotEmpty, IsArray, IsBoolean, IsOptional, ValidateNested } from 'class-validator';
import { PAYMENT_ORDER_STATUSES, type PaymentOrderStatus } from './order-view';
import {
  COUNTRY_PATTERN,
  CreationPeriodAndCursorFilters,
  CURRENCY_CODE_PATTERN,
  CURSOR_PATTERN,
  FieldRule,
  IsOneOf,
  IsPlainText,
  IsWholeNumberBetween,
  MatchesPattern,
  METHOD_PATTERN,
  RequestMessages,
  Trim,
} from '@mp/shared-util-validation';
import type {
  AdvanceClockRequest,
  AgentOrderListQuery,
  AgentServiceArea,
  MerchantOrderListQuery,
  PutAgentRequest,
  PutMethodsRequest,
  StoredMethodEntry,
} from './api';

/**
 * The request classes of the API's bodies: the payments service validates what it receives
 * with them, and the gateway checks an operator's body with the same rules before sending it.
 * class-validator only (contracts stay framework-free); the gateway adds OpenAPI decorators.
 */

function IsIntegerBetween(min: number, max: number, issue: string): PropertyDecorator {
  return FieldRule('isIntegerBetween', (value) => (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? null : issue));
}

const MINOR_UNITS_STRING = /^\d{1,30}$/;
const MINOR_UNITS_ISSUE = 'must be a whole number of minor units as a string';

export class StoredMethodEntryDto implements StoredMethodEntry {
  @MatchesPattern(METHOD_PATTERN, 'must be lower_snake_case')
  method!: string;

  @IsOneOf(['incoming', 'outgoing'], 'must be incoming or outgoing')
  direction!: 'incoming' | 'outgoing';

  @MatchesPattern(COUNTRY_PATTERN, 'must be a two-letter code')
  country!: string;

  @MatchesPattern(CURRENCY_CODE_PATTERN, 'must be a currency code')
  currency!: string;

  @IsIntegerBetween(0, 10_000, 'must be 0 to 10000')
  fee_rate_basis_points!: number;

  @MatchesPattern(MINOR_UNITS_STRING, MINOR_UNITS_ISSUE)
  fee_fixed_minor!: string;

  @MatchesPattern(MINOR_UNITS_STRING, MINOR_UNITS_ISSUE)
  @FieldRule('notAboveMax', (value, args) => {
    const max = (args.object as StoredMethodEntry).max_amount_minor;
    if (typeof value !== 'string' || !MINOR_UNITS_STRING.test(value) || typeof max !== 'string' || !MINOR_UNITS_STRING.test(max)) return null;
    return BigInt(value) > BigInt(max) ? 'must not exceed max_amount_minor' : null;
  })
  min_amount_minor!: string;

  @MatchesPattern(MINOR_UNITS_STRING, MINOR_UNITS_ISSUE)
  max_amount_minor!: string;

  @IsIntegerBetween(1, 1_000_000, 'must be a whole number from 1 to 1000000')
  expiry_minutes!: number;
}

@RequestMessages({ invalid: 'The method configuration is not valid' })
export class PutMethodsRequestDto implements PutMethodsRequest {
  @IsArray({ message: 'must be a non-empty list' })
  @ArrayNotEmpty({ message: 'must be a non-empty list' })
  @ValidateNested({ each: true })
  @Type(() => StoredMethodEntryDto)
  entries!: StoredMethodEntryDto[];
}

export class AgentServiceAreaDto implements AgentServiceArea {
  @MatchesPattern(METHOD_PATTERN, 'must be a method, e.g. bank_card')
  method!: string;

  @MatchesPattern(COUNTRY_PATTERN, 'must be a two-letter country code')
  country!: string;

  @MatchesPattern(CURRENCY_CODE_PATTERN, 'must be a currency code')
  currency!: string;
}

const SERVES_ISSUE = 'must list {method, country, currency} entries';

@RequestMessages({ invalid: 'The agent is not valid' })
/** The operators' agent list (GET /internal/agents): newest first, with cursors. */
@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a filter here; use active, limit, cursor' })
export class AgentListQueryDto {
  @IsOptional()
  @IsOneOf(['true', 'false'], 'must be true or false')
  active?: 'true' | 'false';

  @IsOptional()
  @IsWholeNumberBetween(1, 100, 'query')
  limit?: string;

  @IsOptional()
  @MatchesPattern(CURSOR_PATTERN, 'is not a cursor this API returned')
  cursor?: string;
}

export class PutAgentRequestDto implements PutAgentRequest {
  @Trim()
  @IsPlainText(100)
  display_name!: string;

  @Trim()
  @IsPlainText(500)
  payment_details!: string;

  @IsArray({ message: SERVES_ISSUE })
  @ArrayNotEmpty({ message: SERVES_ISSUE })
  @ValidateNested({ each: true })
  @Type(() => AgentServiceAreaDto)
  serves!: AgentServiceAreaDto[];

  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  active?: boolean;
}

/** The filters every order list has (status, creation period, cursor); `limit` is added per transport. */
export class OrderListFilterFieldsDto extends CreationPeriodAndCursorFilters {
  @IsOptional()
  @IsOneOf(PAYMENT_ORDER_STATUSES)
  status?: PaymentOrderStatus;
}

const LIST_FILTER_NAMES = 'status, created_from, created_to, limit, cursor';

/** The filters as query parameters: `limit` is a string of digits there. */
class OrderListQueryFieldsDto extends OrderListFilterFieldsDto {
  @IsOptional()
  @IsWholeNumberBetween(1, 100, 'query')
  limit?: string;
}

@RequestMessages({ invalid: 'The list filters are not valid', unknownField: `is not a filter; use direction, ${LIST_FILTER_NAMES}` })
export class MerchantOrderListQueryDto extends OrderListQueryFieldsDto implements MerchantOrderListQuery {
  @IsOptional()
  @IsOneOf(['incoming', 'outgoing'], 'must be incoming or outgoing')
  direction?: 'incoming' | 'outgoing';
}

@RequestMessages({ invalid: 'The list filters are not valid', unknownField: `is not a filter; use scope, ${LIST_FILTER_NAMES}` })
export class AgentOrderListQueryDto extends OrderListQueryFieldsDto implements AgentOrderListQuery {
  @IsOptional()
  @IsOneOf(['assigned', 'available'], 'must be assigned or available')
  scope?: 'assigned' | 'available';
}

@RequestMessages({ invalid: 'advance_seconds must be a whole number ≥ 0' })
export class AdvanceClockRequestDto implements AdvanceClockRequest {
  @IsIntegerBetween(0, 10 * 365 * 24 * 3600, 'must be a whole number of seconds ≥ 0')
  advance_seconds!: number;
}
