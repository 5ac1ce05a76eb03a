import type { ValidationOptions } from 'class-validator';
import { FieldRule } from './decorators';
import { JsonNumberLiteral } from './lossless-json';

/**
 * A merchant's own reference data on an order, withdrawal or dispute (`metadata`): a flat map of
 * strings, stored and handed back as sent, never read to decide anything.
 */
export type MerchantMetadata = Record<string, string>;

export const METADATA_KEYS_MAX = 20;
export const METADATA_KEY_LENGTH_MAX = 40;
export const METADATA_VALUE_LENGTH_MAX = 500;

/** The rule in one sentence, for OpenAPI descriptions and docs. */
export const METADATA_RULE = `At most ${METADATA_KEYS_MAX} keys; each key 1 to ${METADATA_KEY_LENGTH_MAX} characters, each value a string of at most ${METADATA_VALUE_LENGTH_MAX} characters; no control characters but tab and line breaks`;

// PostgreSQL's jsonb refuses \u0000, and other control characters have no place in reference data.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/** A value without those control characters, as one pattern for the OpenAPI description (keys cannot carry a pattern in OpenAPI 3.0). */
// eslint-disable-next-line no-control-regex
export const METADATA_VALUE_PATTERN = /^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$/;

/**
 * What is wrong with a metadata map, naming the first bad key, or null when it is fine. Only own
 * keys count, and `__proto__` and friends never reach here: the request pipe refuses field names of
 * Object.prototype at any depth first.
 */
export function metadataIssue(value: unknown): string | null {
  // A JSON number reaches here as a JsonNumberLiteral (the exact-number parse), an object too.
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof JsonNumberLiteral)
    return 'must be an object whose values are strings';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > METADATA_KEYS_MAX) return `must have at most ${METADATA_KEYS_MAX} keys, got ${entries.length}`;
  for (const [key, item] of entries) {
    if (key.length === 0 || key.length > METADATA_KEY_LENGTH_MAX || CONTROL_CHARACTER.test(key)) {
      return `key "${key.slice(0, METADATA_KEY_LENGTH_MAX)}${key.length > METADATA_KEY_LENGTH_MAX ? '…' : ''}" must be 1 to ${METADATA_KEY_LENGTH_MAX} characters without control characters`;
    }
    if (typeof item !== 'string') return `key "${key}" must have a string value`;
    if (item.length > METADATA_VALUE_LENGTH_MAX || CONTROL_CHARACTER.test(item))
      return `key "${key}" must have a value of at most ${METADATA_VALUE_LENGTH_MAX} characters without control characters`;
  }
  return null;
}

/** A `metadata` field: a map as `metadataIssue` describes it. */
export function IsMetadata(options?: ValidationOptions): PropertyDecorator {
  return FieldRule('isMetadata', metadataIssue, options);
}

/** Two metadata maps with the same keys and the same values, whatever their order: how a retry's is compared with the stored one. */
export function sameMetadata(left: MerchantMetadata, right: MerchantMetadata): boolean {
  const leftKeys = Object.keys(left);
  return leftKeys.length === Object.keys(right).length && leftKeys.every((key) => Object.hasOwn(right, key) && right[key] === left[key]);
}
