/**
 * Every error code the merchant API (/v2) documents (docs/api/errors.md). Back-office and
 * internal codes are not here: a merchant never sees them.
 */
export const MERCHANT_ERROR_CODES = [
  'VALIDATION_ERROR',
  'PAYMENT_REJECTED',
  'INSUFFICIENT_FUNDS',
  'INVALID_ADDRESS',
  'INVALID_SIGNATURE',
  'INVALID_API_KEY',
  'TIMESTAMP_OUT_OF_RANGE',
  'MISSING_AUTH_HEADER',
  'MERCHANT_SUSPENDED',
  'ORDER_NOT_FOUND',
  'DISPUTE_NOT_FOUND',
  'WITHDRAWAL_NOT_FOUND',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'DUPLICATE_ORDER',
  'ORDER_NOT_CANCELLABLE',
  'SECRET_ROTATION_IN_PROGRESS',
  'REQUEST_REPLAYED',
  'WEBHOOK_ENDPOINT_DISABLED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type MerchantErrorCode = (typeof MERCHANT_ERROR_CODES)[number];

export interface MerchantErrorDetail {
  field: string;
  issue: string;
}

/**
 * An error answer of the API: `{"error": {code, message, details}, "request_id"}`, with the
 * body's other top-level fields (`server_time`, `dispute_id`, `detected_network`, ...) in `extra`.
 */
export class MerchantApiError extends Error {
  override readonly name = 'MerchantApiError';
  /** From a 429's or 503's `Retry-After` header: how long the server asks the client to wait. */
  retryAfterMs: number | null = null;

  constructor(
    readonly code: MerchantErrorCode,
    readonly status: number,
    message: string,
    readonly details: MerchantErrorDetail[],
    readonly requestId: string | null,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** Reads an error answer; an answer that is not the error model (a proxy's HTML page) keeps its status and a generic code. */
  static fromResponse(status: number, text: string, requestIdHeader: string | null): MerchantApiError {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    const body = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    const error = typeof body['error'] === 'object' && body['error'] !== null ? (body['error'] as Record<string, unknown>) : null;
    const code = isMerchantErrorCode(error?.['code']) ? error['code'] : codeForStatus(status);
    const message = typeof error?.['message'] === 'string' ? error['message'] : `HTTP ${status}: ${text.slice(0, 200)}`;
    const details = Array.isArray(error?.['details']) ? (error['details'] as MerchantErrorDetail[]) : [];
    const { error: _error, request_id: requestId, ...extra } = body;
    return new MerchantApiError(code, status, message, details, typeof requestId === 'string' ? requestId : requestIdHeader, extra);
  }
}

/**
 * For an answer without the error model (a proxy's page): the code the API uses for that
 * status where there is only one; any other 4xx reads as a refusal of the request.
 */
function codeForStatus(status: number): MerchantErrorCode {
  const byStatus: Record<number, MerchantErrorCode> = {
    404: 'NOT_FOUND',
    405: 'METHOD_NOT_ALLOWED',
    413: 'PAYLOAD_TOO_LARGE',
    415: 'UNSUPPORTED_MEDIA_TYPE',
    429: 'RATE_LIMITED',
    503: 'SERVICE_UNAVAILABLE',
  };
  return byStatus[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR');
}

export function isMerchantErrorCode(value: unknown): value is MerchantErrorCode {
  return typeof value === 'string' && (MERCHANT_ERROR_CODES as readonly string[]).includes(value);
}

/** `isMerchantApiError(e, 'DUPLICATE_ORDER')`: an API error, of one of the codes when any are given. */
export function isMerchantApiError(error: unknown, ...codes: MerchantErrorCode[]): error is MerchantApiError {
  return error instanceof MerchantApiError && (codes.length === 0 || codes.includes(error.code));
}
