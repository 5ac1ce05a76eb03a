export { currencyScale, isKnownCurrency, KNOWN_CURRENCIES, type CurrencyCode } from './currency';
export { AMOUNT_UNITS_MAX, formatAmountMinor, parseAmountLiteral, type AmountParseFailure, type AmountParseResult } from './decimal-amount';
export { BASIS_POINTS_PER_UNIT, calculateFeeMinor } from './fee';
