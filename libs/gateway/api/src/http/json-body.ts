import { LosslessNumber, stringify } from 'lossless-json';

/** Money fields that services send as decimal strings and merchants receive as JSON numbers. */
const DECIMAL_FIELDS = new Set(['amount', 'fee', 'fixed', 'percent', 'min_amount', 'max_amount', 'available', 'frozen']);

/** Serializes a response, writing money strings from services as JSON numbers with the same digits. */
export function stringifyResponse(body: unknown): string {
  return stringify(body, (key, value) => (DECIMAL_FIELDS.has(key) && typeof value === 'string' ? new LosslessNumber(value) : value)) ?? 'null';
}
