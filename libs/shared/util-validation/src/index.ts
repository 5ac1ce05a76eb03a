// Request classes built from these rules use class-transformer's @Type, which reads design-time
// metadata through Reflect.getMetadata. Loading the polyfill here makes every module that defines
// request classes work on its own (a unit test, a CLI), not only after a Nest main has loaded it.
import 'reflect-metadata';
export {
  decimalAmountToMinor,
  FieldRule,
  IsCalendarDay,
  IsDecimalAmount,
  IsOneOf,
  IsIsoDateTime,
  IsJsonObject,
  IsNonEmptyString,
  IsStreamVersion,
  NotMoreThan,
  PLAIN_TEXT_PATTERN,
  IsKnownCurrency,
  IsMinorUnits,
  IsOrderId,
  IsPlainText,
  IsWholeNumberBetween,
  MatchesPattern,
  NotAfter,
  Trim,
  type MinorUnitsSign,
} from './decorators';
export {
  ACCOUNT_NUMBER_PATTERN,
  ACCOUNT_NUMBER_RULE,
  AGENT_ID_PATTERN,
  COUNTRY_PATTERN,
  CURRENCY_CODE_PATTERN,
  INTERNAL_ID_PATTERN,
  MERCHANT_ID_PATTERN,
  METHOD_PATTERN,
  ORDER_ID_PATTERN,
  ORDER_ID_RULE,
  PAYER_PAGE_TOKEN_HASH_PATTERN,
  PAYER_PAGE_TOKEN_PATTERN,
  RECIPIENT_ACCOUNT_REF_PATTERN,
  RECEIPT_ID_PATTERN,
  TEST_MERCHANT_ID_PREFIX,
  isTestMerchantId,
  testMerchantIdFor,
} from './ids';
export { JsonNumberLiteral, parseJsonObjectBody, requireJsonObject, stringifyMerchantJson, withPlainNumbers } from './lossless-json';
export { objectPrototypeFieldsError, REQUEST_VALIDATOR_OPTIONS, RequestMessages, validationErrorFrom } from './validation-error';
export {
  IsMetadata,
  METADATA_KEY_LENGTH_MAX,
  METADATA_KEYS_MAX,
  METADATA_RULE,
  METADATA_VALUE_LENGTH_MAX,
  METADATA_VALUE_PATTERN,
  metadataIssue,
  sameMetadata,
  type MerchantMetadata,
} from './metadata';
export { CreationPeriodAndCursorFilters, CURSOR_PATTERN } from './list-filters';
export { checkReceiptFile, detectReceiptType, RECEIPT_BYTES_MAX, safeReceiptFileName, type ReceiptContentType } from './receipt-file';
