/** Responses are serialized like callback bodies: one shared writer, money strings as JSON numbers. */
export { stringifyMerchantJson as stringifyResponse } from '@mp/shared-util-validation';
