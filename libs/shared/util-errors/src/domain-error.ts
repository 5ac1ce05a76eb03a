import type { ErrorCode } from './error-codes';

/** One entry of an error's `details`: which field was wrong and why, in words a developer reads. */
export interface ErrorDetail {
  field: string;
  issue: string;
}

/** What crosses service boundaries (command replies, internal HTTP) and becomes the API error body. */
export interface ErrorDescription {
  code: ErrorCode;
  message: string;
  details: ErrorDetail[];
  /** Extra top-level members of the error body, e.g. `server_time` for a stale timestamp. */
  extra?: Record<string, unknown>;
}

/**
 * A business or request error with a stable code. Thrown by deciders and edges alike; the
 * gateway's exception filter is the one place that turns it into an HTTP response. Broken
 * invariants are not DomainErrors: they are plain Errors and crash the handler.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  static fromDescription(description: ErrorDescription): DomainError {
    return new DomainError(description.code, description.message, description.details, description.extra);
  }

  toDescription(): ErrorDescription {
    return { code: this.code, message: this.message, details: this.details, ...(this.extra ? { extra: this.extra } : {}) };
  }
}

export function validationError(details: ErrorDetail[], message = 'The request is not valid'): DomainError {
  return new DomainError('VALIDATION_ERROR', message, details);
}
