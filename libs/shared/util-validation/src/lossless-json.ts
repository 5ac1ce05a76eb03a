import { DomainError } from '@mp/shared-util-errors';
import { LosslessNumber, parse, stringify } from 'lossless-json';

/** A JSON number exactly as the client wrote it; amounts are converted from this text, never from a double. */
export class JsonNumberLiteral {
  constructor(readonly literal: string) {}
}

/**
 * Parses a request body. Numbers keep their literal text, a key given twice with different
 * values is refused (which one wins would be a guess), and the top level must be an object.
 * Every failure is a VALIDATION_ERROR naming the body.
 */
export function parseJsonObjectBody(rawBody: Buffer | undefined): Record<string, unknown> {
  const text = rawBody && rawBody.length > 0 ? rawBody.toString('utf8') : '';
  if (text.trim() === '')
    throw new DomainError('VALIDATION_ERROR', 'The request body is required', [
      { field: 'body', issue: 'must be a JSON object ({} when there is nothing to send)' },
    ]);
  let value: unknown;
  try {
    value = parse(text, undefined, (literal: string) => new JsonNumberLiteral(literal));
  } catch (error) {
    throw new DomainError('VALIDATION_ERROR', 'The request body is not valid JSON', [{ field: 'body', issue: (error as Error).message }]);
  }
  return requireJsonObject(value);
}

/** The body must be an object; arrays, strings, numbers and null are refused naming the body. */
export function requireJsonObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof JsonNumberLiteral || Buffer.isBuffer(value)) {
    throw new DomainError('VALIDATION_ERROR', 'The request body must be a JSON object', [{ field: 'body', issue: 'must be a JSON object' }]);
  }
  return value as Record<string, unknown>;
}

/**
 * The same value with every number as a JavaScript number, for requests whose numbers are
 * small integers (counts, basis points) and are passed on to another service as JSON.
 */
export function withPlainNumbers(value: unknown): unknown {
  if (value instanceof JsonNumberLiteral) return Number(value.literal);
  if (Array.isArray(value)) return value.map(withPlainNumbers);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withPlainNumbers(item)]));
  return value;
}

/** Money fields that services send as decimal strings and merchants receive as JSON numbers. */
const DECIMAL_FIELDS = new Set([
  'amount',
  'settled_amount',
  'fee',
  'fixed',
  'percent',
  'min_amount',
  'max_amount',
  'available',
  'frozen',
  'network_fee',
  'from_amount',
  'to_amount',
]);

/**
 * Serializes what merchants receive (API answers, callback bodies), writing money strings from
 * services as JSON numbers with the same digits, so both show one order the same way.
 */
export function stringifyMerchantJson(body: unknown): string {
  return stringify(body, (key, value) => (DECIMAL_FIELDS.has(key) && typeof value === 'string' ? new LosslessNumber(value) : value)) ?? 'null';
}
