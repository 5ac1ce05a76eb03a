export {
  verifyCallback,
  type CallbackEvent,
  type CallbackVerification,
  type DisputeCallbackType,
  type PaymentCallbackType,
  type WithdrawalCallbackType,
} from './callbacks';
export * from './client';
export { isMerchantApiError, isMerchantErrorCode, MERCHANT_ERROR_CODES, MerchantApiError, type MerchantErrorCode, type MerchantErrorDetail } from './errors';
export { MerchantNetworkError, type RetryOptions, type RetrySafety } from './retry';
export { pathSegment, signatureHeaders, signedPath, signRequest, SIGNATURE_HEADERS, type RequestSignature, type SignatureInput } from './signing';
export type { paths as MerchantApiPaths } from './generated/openapi';
