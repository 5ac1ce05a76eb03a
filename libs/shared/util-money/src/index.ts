export { currencyScale, isKnownCurrency, type CurrencyCode } from './currency';
export {
  AMOUNT_UNITS_MAX,
  formatAmountMinor,
  parseAmountLiteral,
  type AmountParseFailure,
  type AmountParseResult,
} from './decimal-amount';
