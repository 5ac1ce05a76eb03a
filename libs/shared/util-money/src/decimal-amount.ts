import { currencyScale } from './currency';

/** The largest amount the platform accepts, in whole currency units (docs/api/money-and-fees.md "Limits": 10^12). */
export const AMOUNT_UNITS_MAX = 10n ** 12n;

/** JSON number grammar (RFC 8259 section 6). */
const JSON_NUMBER_LITERAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export type AmountParseFailure = 'not_a_number' | 'not_positive' | 'too_many_decimals' | 'too_large';

export type AmountParseResult = { ok: true; amountMinor: bigint } | { ok: false; reason: AmountParseFailure };

/**
 * Converts the literal text of a JSON number (as the merchant sent it, never a parsed
 * double) to integer minor units of the currency. Exact for every value: 999999999999.123456
 * USDT has 18 significant digits, more than a double holds.
 */
export function parseAmountLiteral(literal: string, currency: string): AmountParseResult {
  const match = JSON_NUMBER_LITERAL.exec(literal);
  if (!match) return { ok: false, reason: 'not_a_number' };
  if (literal.startsWith('-')) return { ok: false, reason: 'not_positive' };

  const [, integerPart, fractionWithDot = '', exponentPart = ''] = match;
  const exponent = exponentPart === '' ? 0 : Number(exponentPart.slice(1));
  // An exponent beyond this cannot give a valid amount; refusing it early avoids building
  // enormous strings for inputs such as 1e999999999.
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 64) {
    return { ok: false, reason: exponent > 0 ? 'too_large' : 'too_many_decimals' };
  }

  // digits × 10^(exponent − fractionLength) is the exact value.
  const fraction = fractionWithDot.slice(1);
  const digits = (integerPart + fraction).replace(/^0+(?=\d)/, '');
  let decimalPlaces = fraction.length - exponent;
  let significand = digits;
  if (decimalPlaces < 0) {
    significand = digits + '0'.repeat(-decimalPlaces);
    decimalPlaces = 0;
  }
  // Trailing zeros after the decimal point carry no value: 10.500 is 10.5.
  while (decimalPlaces > 0 && significand.endsWith('0') && significand.length > 1) {
    significand = significand.slice(0, -1);
    decimalPlaces -= 1;
  }

  const scale = currencyScale(currency);
  if (decimalPlaces > scale) return { ok: false, reason: 'too_many_decimals' };
  const amountMinor = BigInt(significand) * 10n ** BigInt(scale - decimalPlaces);
  if (amountMinor <= 0n) return { ok: false, reason: 'not_positive' };
  if (amountMinor > AMOUNT_UNITS_MAX * 10n ** BigInt(scale)) return { ok: false, reason: 'too_large' };
  return { ok: true, amountMinor };
}

/** Formats minor units as a plain decimal literal with the currency's scale: 1050 USD → "10.50". */
export function formatAmountMinor(amountMinor: bigint, currency: string): string {
  const scale = currencyScale(currency);
  const negative = amountMinor < 0n;
  const digits = (negative ? -amountMinor : amountMinor).toString().padStart(scale + 1, '0');
  const units = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${units}` : units;
}
