import { ApiPropertyOptional } from '@nestjs/swagger';
import { AgentOrderListQueryDto, OrderListFilterFieldsDto, PAYMENT_ORDER_STATUSES, type OrderListQuery, type PaymentOrderStatus } from '@mp/contracts-payments';
import { IsWholeNumberBetween, JsonNumberLiteral, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { CREATION_PERIOD_SCHEMA, CURSOR_SCHEMA } from '../openapi/request-schemas';

/** docs/api/states.md "Lists": the filters of endpoints 4, 5, 12 and 15, all optional, as the payments service takes them. */
export type ListFilters = OrderListQuery;

/**
 * The list body of endpoints 4 and 5 (a signed JSON body), with the payments service's own
 * filter rules. Unknown names are refused so a misspelt filter never silently returns everything.
 */
@RequestMessages({ invalid: 'The list filters are not valid', unknownField: 'is not a filter; use status, created_from, created_to, limit, cursor' })
@ApiCreationPeriodAndCursor()
export class ListFiltersBody extends OrderListFilterFieldsDto {
  @ApiPropertyOptional({ enum: PAYMENT_ORDER_STATUSES })
  override status?: PaymentOrderStatus;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @IsWholeNumberBetween(1, 100, 'json')
  limit?: JsonNumberLiteral;
}

/**
 * The OpenAPI description of the filters every merchant list body inherits from
 * CreationPeriodAndCursorFilters (which holds their rules), added to the body class here.
 */
export function ApiCreationPeriodAndCursor(): ClassDecorator {
  return (target) => {
    ApiPropertyOptional({
      ...CREATION_PERIOD_SCHEMA,
      description: 'ISO 8601 date or date-time, inclusive; not after created_to (400 VALIDATION_ERROR otherwise)',
      example: '2026-01-31T00:00:00Z',
    })(target.prototype, 'created_from');
    ApiPropertyOptional({
      ...CREATION_PERIOD_SCHEMA,
      description: 'ISO 8601 date or date-time, inclusive; not before created_from',
      example: '2026-02-01T00:00:00Z',
    })(target.prototype, 'created_to');
    ApiPropertyOptional(CURSOR_SCHEMA)(target.prototype, 'cursor');
  };
}

/** An agent's list in the back office: the same filters as query parameters, and which orders (`scope`). */
export class AgentOrdersQuery extends AgentOrderListQueryDto {
  @ApiPropertyOptional({ enum: ['assigned', 'available'], default: 'assigned' })
  override scope?: 'assigned' | 'available';

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  override limit?: string;
}

/** The filter fields every list has; the status values are the list's own (orders or withdrawals). */
interface ListFilterFields<Status extends string> {
  status?: Status;
  created_from?: string;
  created_to?: string;
  cursor?: string;
  limit?: JsonNumberLiteral | string;
}

/** Validated filters, normalised for the service that lists (dates as UTC ISO 8601). */
export function toListFilters<Status extends string = PaymentOrderStatus>(
  filters: ListFilterFields<Status>,
): Omit<ListFilters, 'status'> & { status?: Status } {
  const result: Omit<ListFilters, 'status'> & { status?: Status } = {};
  if (filters.status != null) result.status = filters.status;
  if (filters.created_from != null) result.created_from = new Date(filters.created_from).toISOString();
  if (filters.created_to != null) result.created_to = new Date(filters.created_to).toISOString();
  if (filters.limit != null) result.limit = filters.limit instanceof JsonNumberLiteral ? filters.limit.literal : filters.limit;
  if (filters.cursor != null) result.cursor = filters.cursor;
  return result;
}

export function toQueryString(filters: object): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined) query.set(name, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}
