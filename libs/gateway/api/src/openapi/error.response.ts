import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { HTTP_STATUS_BY_ERROR_CODE, publicErrorBody, type ErrorCode } from '@mp/shared-util-errors';

const ERROR_CODES = Object.keys(HTTP_STATUS_BY_ERROR_CODE) as ErrorCode[];

export class ErrorDetailResponse {
  @ApiProperty({ description: 'The field at fault (a dotted path), or `body` / `path` / a header name', example: 'amount' })
  field!: string;

  @ApiProperty({ description: 'What is wrong with it, for a developer to read', example: 'must be a positive JSON number' })
  issue!: string;
}

export class ErrorBodyResponse {
  @ApiProperty({ enum: ERROR_CODES, enumName: 'ErrorCode', description: 'Stable: branch on this, never on the message', example: 'VALIDATION_ERROR' })
  code!: ErrorCode;

  @ApiProperty({ description: 'What went wrong, in words; may change between releases', example: 'The payment is not valid' })
  message!: string;

  @ApiProperty({ type: [ErrorDetailResponse] })
  details!: ErrorDetailResponse[];
}

/** With INVALID_SIGNATURE: what the server signed, so a client can find its mistake; never a secret or the expected signature. */
export class ServerSignedResponse {
  @ApiProperty({ description: 'The x-timestamp value the server used', example: '1767225600' })
  timestamp!: string;

  @ApiProperty({ description: 'The path as the server signed it: percent-decoded, except %2F', example: '/v2/payments/A:1/cancel' })
  path!: string;

  @ApiProperty({ type: 'integer', description: 'The length of the raw body the server received, in bytes', example: 2 })
  body_bytes!: number;

  @ApiProperty({ description: 'SHA-256 of the raw body bytes, lower-case hex', example: '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a' })
  body_sha256!: string;

  @ApiProperty({
    description: 'The signed string described in words',
    example: '"1767225600./v2/payments/A:1/cancel." followed by the 2 raw body bytes (SHA-256 44136fa3…), signed with HMAC-SHA256 and your API secret',
  })
  string_to_sign!: string;
}

/**
 * Every error answer (docs/api/errors.md). Some codes add members next to `error`,
 * e.g. `server_time` with TIMESTAMP_OUT_OF_RANGE, so other top-level members may appear.
 */
export class ErrorResponse {
  @ApiProperty({ type: ErrorBodyResponse })
  error!: ErrorBodyResponse;

  @ApiProperty({ description: 'The same as the x-request-id header; quote it to support', example: 'req_01J9Z8Q4W5' })
  request_id!: string;

  @ApiPropertyOptional({ type: ServerSignedResponse, description: 'INVALID_SIGNATURE only' })
  server_signed?: ServerSignedResponse;

  @ApiPropertyOptional({ type: 'integer', description: 'TIMESTAMP_OUT_OF_RANGE only: the server clock, Unix seconds', example: 1767225600 })
  server_time?: number;
}

/** What any request may be answered, whoever sends it: the HTTP edge's own refusals and outages. */
const ANY_REQUEST_ERRORS: readonly ErrorCode[] = [
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

/** What any signed /v2 request may be answered, whatever the endpoint does. */
export const SIGNED_REQUEST_ERRORS: readonly ErrorCode[] = [
  'VALIDATION_ERROR',
  'MISSING_AUTH_HEADER',
  'INVALID_API_KEY',
  'INVALID_SIGNATURE',
  'TIMESTAMP_OUT_OF_RANGE',
  'MERCHANT_SUSPENDED',
  ...ANY_REQUEST_ERRORS,
];

/** What any back-office request (Bearer token of an operator or agent) may be answered, whatever the route does. */
export const BEARER_REQUEST_ERRORS: readonly ErrorCode[] = [
  'VALIDATION_ERROR',
  'MISSING_AUTH_HEADER',
  'INVALID_API_KEY',
  'CREDENTIAL_EXPIRED',
  'CREDENTIAL_REVOKED',
  'FORBIDDEN',
  ...ANY_REQUEST_ERRORS,
];

/**
 * The error answers of one signed /v2 operation: the codes it raises itself plus those of every
 * signed request, grouped by the status the error catalogue gives each code (so a status in the
 * description can never drift from the one the server sends). Codes of one status share a
 * response whose description lists them. `default` covers what no status names (404 for a
 * path no route matches, docs/api).
 */
export function ApiErrorResponses(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return errorResponses([...SIGNED_REQUEST_ERRORS, ...codes]);
}

/** The same for a back-office route (agent or operator): its own codes plus those of every Bearer-authenticated request. On a controller class it applies to each of its routes. */
export function BackofficeApiErrorResponses(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return errorResponses([...BEARER_REQUEST_ERRORS, ...codes]);
}

function errorResponses(codes: readonly ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = HTTP_STATUS_BY_ERROR_CODE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses = [...byStatus.entries()]
    .sort(([left], [right]) => left - right)
    .map(([status, statusCodes]) =>
      ApiResponse({
        status,
        description: statusCodes.join(', '),
        content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponse) }, example: errorExample(statusCodes[0]) } },
      }),
    );
  return applyDecorators(
    ApiExtraModels(ErrorResponse),
    ...responses,
    ApiResponse({
      status: 'default',
      description: 'Any other error, in the same body',
      content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponse) } } },
    }),
  );
}

function errorExample(code: ErrorCode) {
  return publicErrorBody(code, ERROR_EXAMPLE_MESSAGES[code] ?? 'See the code', 'req_01J9Z8Q4W5');
}

const ERROR_EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'The payment is not valid',
  MISSING_AUTH_HEADER: 'The x-signature header is required',
  MERCHANT_SUSPENDED: 'The merchant account is suspended',
  ORDER_NOT_FOUND: 'No order A-1',
  DUPLICATE_ORDER: 'Order A-1 exists with another amount or currency',
  PAYLOAD_TOO_LARGE: 'The body is larger than this route accepts',
  RATE_LIMITED: 'Too many requests; retry after the Retry-After seconds',
  INTERNAL_ERROR: 'An internal error occurred; it has been logged',
  SERVICE_UNAVAILABLE: 'The payments service did not answer in time; retrying with the same order_id is safe and never creates a second order',
};
