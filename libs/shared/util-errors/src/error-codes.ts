/**
 * Every error code a client can see, with its HTTP status: the single mapping of the error
 * model of docs/api/errors.md. Services raise codes; only the HTTP edge reads statuses.
 */
export const HTTP_STATUS_BY_ERROR_CODE = {
  VALIDATION_ERROR: 400,
  PAYMENT_REJECTED: 400,
  INSUFFICIENT_FUNDS: 400,
  INVALID_ADDRESS: 400,
  INVALID_SIGNATURE: 401,
  INVALID_API_KEY: 401,
  TIMESTAMP_OUT_OF_RANGE: 401,
  MISSING_AUTH_HEADER: 401,
  /** Back-office API only: the bearer token's lifetime has ended, or an operator revoked it. */
  CREDENTIAL_EXPIRED: 401,
  CREDENTIAL_REVOKED: 401,
  /** Internal APIs only: no valid service token (missing, forged, expired or for another service). */
  UNAUTHENTICATED: 401,
  /** Console only: no session, or it expired, was signed out or its credential was revoked. */
  CONSOLE_SESSION_REQUIRED: 401,
  /** Console only: sign-in with an unknown, revoked or expired credential, or one of another role (one answer for all). */
  INVALID_CONSOLE_CREDENTIALS: 401,
  /** Operator and agent API only: the credential's role may not do this. */
  FORBIDDEN: 403,
  /** The merchant's signature is valid but an operator suspended the account. */
  MERCHANT_SUSPENDED: 403,
  /** Console only: a request that changes something without the console's Origin or the session's x-csrf-token. */
  CSRF_TOKEN_INVALID: 403,
  /** Console only: the session's role may not use this part of the console. */
  CONSOLE_ROLE_FORBIDDEN: 403,
  ORDER_NOT_FOUND: 404,
  DISPUTE_NOT_FOUND: 404,
  WITHDRAWAL_NOT_FOUND: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  DUPLICATE_ORDER: 409,
  ORDER_NOT_CANCELLABLE: 409,
  /** Operator and agent API only: the order is not in a state that allows the action. */
  ORDER_STATE_CONFLICT: 409,
  /**
   * A signed request that changes something (a secret rotation, a merchant setting, a webhook
   * tool) sent a second time with the same signature: a captured request replayed. Re-sign to
   * send it again.
   */
  REQUEST_REPLAYED: 409,
  /** A secret rotation while the previous rotation's overlap still runs. */
  SECRET_ROTATION_IN_PROGRESS: 409,
  /** Operator API only: suspending a suspended merchant, or reinstating an active one. */
  MERCHANT_STATUS_CONFLICT: 409,
  /** A merchant's redelivery or test callback to an endpoint that is disabled (410 Gone, or too many failures). */
  WEBHOOK_ENDPOINT_DISABLED: 409,
  /** Operator API only: the merchant already has its sandbox merchant (its secrets rotate instead). */
  TEST_CREDENTIALS_EXIST: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof HTTP_STATUS_BY_ERROR_CODE;

export function httpStatusOf(code: ErrorCode): number {
  return HTTP_STATUS_BY_ERROR_CODE[code];
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(HTTP_STATUS_BY_ERROR_CODE, value);
}
