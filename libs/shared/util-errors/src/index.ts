export { HTTP_STATUS_BY_ERROR_CODE, httpStatusOf, isErrorCode, type ErrorCode } from './error-codes';
export { DomainError, validationError, type ErrorDescription, type ErrorDetail } from './domain-error';
export { internalErrorBody, publicErrorAnswer, publicErrorBody, readInternalErrorBody, type InternalErrorBody, type PublicErrorBody } from './error-body';
