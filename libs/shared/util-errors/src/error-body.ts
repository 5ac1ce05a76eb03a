import { DomainError, type ErrorDetail } from './domain-error';
import { httpStatusOf, isErrorCode, type ErrorCode } from './error-codes';

/**
 * The error bodies of the platform's HTTP APIs, written here and read here, so the shape lives in
 * one place per side:
 * - the merchant API and the back office (docs/api/errors.md): `{"error": {code, message, details}, "request_id", ...extra}`;
 * - the services' internal APIs: `{code, message, details}`, the DomainError's description, so
 *   the caller can raise the same DomainError again.
 */
export interface PublicErrorBody {
  error: { code: ErrorCode; message: string; details: ErrorDetail[] };
  /** Null only where no request id was given (the console's own routes before the gateway's hook). */
  request_id: string | null;
  [extra: string]: unknown;
}

export interface InternalErrorBody {
  code: ErrorCode;
  message: string;
  details: ErrorDetail[];
}

/** A merchant API error body. */
export function publicErrorBody(
  code: ErrorCode,
  message: string,
  requestId: string | null,
  details: ErrorDetail[] = [],
  extra?: Record<string, unknown>,
): PublicErrorBody {
  return { error: { code, message, details }, request_id: requestId, ...extra };
}

/** A DomainError as the merchant API answers it: the status of its code and its body. */
export function publicErrorAnswer(error: DomainError, requestId: string): { status: number; body: PublicErrorBody } {
  return { status: httpStatusOf(error.code), body: publicErrorBody(error.code, error.message, requestId, error.details, error.extra) };
}

/** An internal API's error body. */
export function internalErrorBody(code: ErrorCode, message: string, details: ErrorDetail[] = []): InternalErrorBody {
  return { code, message, details };
}

/**
 * The DomainError an internal API's error body carries, or null when the body is not one (no
 * body, not JSON, an unknown code). The message falls back to `fallbackMessage`, else the code.
 */
export function readInternalErrorBody(payload: unknown, fallbackMessage?: string): DomainError | null {
  const body = payload as { code?: unknown; message?: unknown; details?: unknown } | null | undefined;
  if (!body || typeof body !== 'object' || !isErrorCode(body.code)) return null;
  return new DomainError(body.code, String(body.message ?? fallbackMessage ?? body.code), Array.isArray(body.details) ? (body.details as ErrorDetail[]) : []);
}
