import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiPropertyOptional } from '@nestjs/swagger';
import { CURSOR_PATTERN, IsMetadata, METADATA_KEYS_MAX, METADATA_RULE, METADATA_VALUE_LENGTH_MAX, METADATA_VALUE_PATTERN } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';

/**
 * Schema parts of request fields the merchant API's description shares, so that what it allows is
 * what the server takes: a client generated from openapi.json (and the fuzzer, npm run fuzz) then
 * sends requests the server accepts. Rules no schema can state are said in the descriptions.
 */

/** The longest callback URL the gateway takes (IsCallbackUrl). */
export const CALLBACK_URL_LENGTH_MAX = 2048;

/**
 * A callback URL as the gateway takes it (IsCallbackUrl, then the destination policy): absolute,
 * https://, on a port callbacks may use. The pattern is a subset of what `new URL` parses: host
 * labels start with a letter (a numeric last label would be read as an IPv4 address), and the
 * port is one of the default CALLBACK_ALLOWED_PORTS (443, 8443); an operator may allow others.
 */
export const CALLBACK_URL_SCHEMA = {
  type: 'string',
  format: 'uri',
  maxLength: CALLBACK_URL_LENGTH_MAX,
  pattern: '^https://[A-Za-z][A-Za-z0-9-]{0,62}(\\.[A-Za-z][A-Za-z0-9-]{0,62}){0,8}(:(443|8443))?(/[!-~]*)?$',
  example: 'https://shop.example/callbacks',
} as const;

/** What the server does with a callback URL beyond its shape; one sentence every such field's description ends with. */
export const CALLBACK_DESTINATION_RULES = `An absolute https:// URL of at most ${CALLBACK_URL_LENGTH_MAX} characters, on port 443 or 8443 unless the platform's operator allows others; when an operator gave the merchant a callback allow-list, its host must be on it (400 VALIDATION_ERROR otherwise).`;

/**
 * The merchant's `metadata` map (IsMetadata): request bodies and state objects alike. OpenAPI
 * 3.0 cannot bound a key's length, so the description says it.
 */
export const METADATA_SCHEMA = {
  type: 'object',
  maxProperties: METADATA_KEYS_MAX,
  additionalProperties: { type: 'string', maxLength: METADATA_VALUE_LENGTH_MAX, pattern: METADATA_VALUE_PATTERN.source },
  example: { cart_id: 'C-7731', customer_id: 'U-102' },
} as const;

/** The metadata field's description on requests; responses say what they give back. */
export const METADATA_REQUEST_DESCRIPTION = `Your own reference data (a cart id, a customer id, an invoice number), stored with the object and returned by reads, lists, callbacks and the reconciliation report; never used to decide anything. ${METADATA_RULE} (400 VALIDATION_ERROR naming the key otherwise).`;

/** What creates idempotent by order_id add to the metadata's description. */
export const METADATA_RETRY_RULE = 'A retry with the same order_id must send the same metadata, absent meaning {} (409 DUPLICATE_ORDER otherwise).';

/** A return URL is held to the callback destination policy: the same sentence. */
export const RETURN_URL_DESCRIPTION = `Where the payer page links back to once the order is final, with order_id and outcome appended as query parameters (not authoritative: trust the callback or a status read). Without it, the merchant profile's default_return_url; without that, no link. ${CALLBACK_DESTINATION_RULES}`;

/** The `metadata` of a state object (pay-ins, payouts, withdrawals, disputes). */
export const METADATA_RESPONSE_PROPERTY = { ...METADATA_SCHEMA, description: 'Your own reference data as sent on create; {} when none' };

/** An optional `metadata` field of a create body: its rule (IsMetadata) and its description. `retried`: the create is idempotent by order_id. */
export function MetadataRequestField(retried: boolean): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ ...METADATA_SCHEMA, description: retried ? `${METADATA_REQUEST_DESCRIPTION} ${METADATA_RETRY_RULE}` : METADATA_REQUEST_DESCRIPTION }),
    IsOptional(),
    IsMetadata(),
  );
}

/**
 * The creation-period filters of every merchant list. IsIsoDateTime takes a string of
 * ISO_DATE_OR_DATE_TIME_PATTERN's shape that Date.parse reads; this pattern is that shape with the
 * field ranges a date has (month 01-12, hour 00-23, ...), so what it matches Date.parse reads too.
 */
export const CREATION_PERIOD_SCHEMA = {
  type: 'string',
  pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d))?$',
} as const;

/** A list cursor: only a next_cursor the same list returned (its shape is CURSOR_PATTERN; anything else is 400). */
export const CURSOR_SCHEMA = {
  type: 'string',
  minLength: 1,
  pattern: CURSOR_PATTERN.source,
  description: 'next_cursor of the previous page of the same list, as it was returned (anything else is 400 VALIDATION_ERROR)',
} as const;

/**
 * A list operation's body with one whole example: the first page of a period. Without it the
 * description's example is put together from each field's example, and a cursor (which only a
 * previous page can give) makes it a request the server refuses.
 */
export function ApiListFiltersBody(type: new () => unknown, status: string): MethodDecorator {
  return ApiBody({
    type,
    examples: {
      firstPage: {
        summary: 'The first page of a period',
        value: { status, created_from: '2026-01-01T00:00:00Z', created_to: '2026-01-31T23:59:59Z', limit: 50 },
      },
    },
  });
}
