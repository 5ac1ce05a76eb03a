import { PAYMENT_ORDER_STATUSES } from '@mp/contracts-payments';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { JsonNumberLiteral } from '../http/json-body';

/** decisions.md "Lists": the filters of endpoints 4, 5, 12 and 15, all optional. */
export interface ListFilters {
  status?: string;
  created_from?: string;
  created_to?: string;
  limit?: string;
  cursor?: string;
}

const FILTER_NAMES = ['status', 'created_from', 'created_to', 'limit', 'cursor'];
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** Checks a list body; unknown names are refused so a misspelt filter never silently returns everything. */
export function toListFilters(body: Record<string, unknown>, statuses: readonly string[] = PAYMENT_ORDER_STATUSES): ListFilters {
  const details: ErrorDetail[] = [];
  const filters: ListFilters = {};
  for (const [name, value] of Object.entries(body)) {
    if (!FILTER_NAMES.includes(name)) {
      details.push({ field: name, issue: `is not a filter; use ${FILTER_NAMES.join(', ')}` });
      continue;
    }
    if (value === null) continue;
    if (name === 'limit') {
      const literal = value instanceof JsonNumberLiteral ? value.literal : '';
      if (!/^(100|[1-9]\d?)$/.test(literal)) details.push({ field: 'limit', issue: 'must be a whole number from 1 to 100' });
      else filters.limit = literal;
    } else if (typeof value !== 'string') {
      details.push({ field: name, issue: 'must be a string' });
    } else if (name === 'status') {
      if (!statuses.includes(value)) details.push({ field: 'status', issue: `must be one of ${statuses.join(', ')}` });
      else filters.status = value;
    } else if (name === 'created_from' || name === 'created_to') {
      if (!ISO_8601.test(value) || Number.isNaN(Date.parse(value))) details.push({ field: name, issue: 'must be an ISO 8601 date or date-time' });
      else filters[name] = new Date(value).toISOString();
    } else if (name === 'cursor') {
      if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) details.push({ field: 'cursor', issue: 'is not a cursor this API returned' });
      else filters.cursor = value;
    }
  }
  if (filters.created_from && filters.created_to && filters.created_from > filters.created_to) details.push({ field: 'created_from', issue: 'must not be after created_to' });
  if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The list filters are not valid', details);
  return filters;
}

export function toQueryString(filters: object): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined) query.set(name, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}
