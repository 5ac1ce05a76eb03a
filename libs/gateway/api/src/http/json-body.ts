import { DomainError } from '@mp/shared-util-errors';
import { LosslessNumber, parse, stringify } from 'lossless-json';

/** A JSON number exactly as the client wrote it; amounts are converted from this text, never from a double. */
export class JsonNumberLiteral {
  constructor(readonly literal: string) {}
}

/**
 * Parses a signed request body. Numbers keep their literal text, a key given twice with
 * different values is refused (which one wins would be a guess), and the top level must be an
 * object. Every failure is a VALIDATION_ERROR naming the body.
 */
export function parseJsonObjectBody(rawBody: Buffer | undefined): Record<string, unknown> {
  const text = rawBody && rawBody.length > 0 ? rawBody.toString('utf8') : '';
  if (text.trim() === '') throw new DomainError('VALIDATION_ERROR', 'The request body is required', [{ field: 'body', issue: 'must be a JSON object ({} when there is nothing to send)' }]);
  let value: unknown;
  try {
    value = parse(text, undefined, (literal: string) => new JsonNumberLiteral(literal));
  } catch (error) {
    throw new DomainError('VALIDATION_ERROR', 'The request body is not valid JSON', [{ field: 'body', issue: (error as Error).message }]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof JsonNumberLiteral) {
    throw new DomainError('VALIDATION_ERROR', 'The request body must be a JSON object', [{ field: 'body', issue: 'must be a JSON object' }]);
  }
  return value as Record<string, unknown>;
}

/** Money fields that services send as decimal strings and merchants receive as JSON numbers. */
const DECIMAL_FIELDS = new Set(['amount', 'fee', 'fixed', 'percent', 'min_amount', 'max_amount', 'available', 'frozen', 'network_fee', 'from_amount', 'to_amount']);

/** Serializes a response, writing money strings from services as JSON numbers with the same digits. */
export function stringifyResponse(body: unknown): string {
  return stringify(body, (key, value) => (DECIMAL_FIELDS.has(key) && typeof value === 'string' ? new LosslessNumber(value) : value)) ?? 'null';
}
