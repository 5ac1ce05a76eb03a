import { currencyScale, formatAmountMinor, isKnownCurrency } from '@mp/shared-util-money';

/**
 * Money in the console: the APIs write amounts as decimal JSON numbers in the currency's scale
 * (`1500.50`), the reconciliation CSV as integer minor units. Everything here works on integer
 * minor units (bigint) and the decimal *text*, never on a binary double: 999999999999.123456
 * USDT has more digits than a double holds.
 */

/** Decimals of a currency or asset (the platform's table); a withdrawal asset (`USDT-ERC20`) has its balance asset's. */
export function scaleOf(currency: string): number {
  if (isKnownCurrency(currency)) return currencyScale(currency);
  const balanceAsset = currency.split('-')[0] ?? '';
  if (currency.includes('-') && isKnownCurrency(balanceAsset)) return currencyScale(balanceAsset);
  throw new Error(`unknown currency ${currency}`);
}

const DECIMAL_LITERAL = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The API's decimal text (`"1500.50"`, `"-12.07"`, `"1.5e2"`) as exact minor units of the currency. */
export function decimalToMinor(literal: string, currency: string): bigint {
  const match = DECIMAL_LITERAL.exec(literal.trim());
  if (!match) throw new Error(`${JSON.stringify(literal)} is not a decimal`);
  const [, sign, integerPart = '0', fraction = '', exponentText] = match;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  if (Math.abs(exponent) > 64) throw new Error(`${literal} is out of range`);
  // digits × 10^(exponent − fraction length), then moved to the currency's scale.
  let decimals = fraction.length - exponent;
  let digits = `${integerPart}${fraction}`;
  while (decimals > 0 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    decimals -= 1;
  }
  const scale = scaleOf(currency);
  if (decimals > scale) throw new Error(`${literal} has more decimals than ${currency} has (${scale})`);
  const minor = BigInt(digits === '' ? '0' : digits) * 10n ** BigInt(scale - decimals);
  return sign === '-' ? -minor : minor;
}

function isoCurrencyCode(currency: string): boolean {
  try {
    new Intl.NumberFormat('en', { style: 'currency', currency });
    // Intl accepts any three letters; only the platform's fiat codes (scale ≤ 3) are written as currencies.
    return /^[A-Z]{3}$/.test(currency) && scaleOf(currency) <= 3;
  } catch {
    return false;
  }
}

/**
 * Minor units formatted for people, with all of the currency's decimals: `$1,500.50`,
 * `999,999,999,999.123456 USDT`. Intl.NumberFormat formats a decimal *string* exactly
 * (ECMA-402 "Intl.NumberFormat v3"), so the value never passes through a double.
 */
export function formatMoney(minor: bigint, currency: string, locale?: string): string {
  const scale = scaleOf(currency);
  const baseCurrency = currency.includes('-') ? (currency.split('-')[0] ?? currency) : currency;
  const decimalText = formatAmountMinor(minor, isKnownCurrency(currency) ? currency : baseCurrency);
  // lib ES2022's typings take number | bigint only; the engine takes the string exactly (see above).
  const exactDecimal = decimalText as unknown as number;
  if (isoCurrencyCode(currency)) {
    return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: scale, maximumFractionDigits: scale }).format(exactDecimal);
  }
  const number = new Intl.NumberFormat(locale, { minimumFractionDigits: scale, maximumFractionDigits: scale }).format(exactDecimal);
  return `${number} ${currency}`;
}

/** An API decimal (as parseJsonKeepingMoney keeps it) formatted through its minor units. */
export function formatMoneyDecimal(decimal: string | number, currency: string, locale?: string): string {
  return formatMoney(decimalToMinor(String(decimal), currency), currency, locale);
}

/** The fields in which the APIs write money as JSON numbers. */
const MONEY_FIELDS = ['amount', 'fee', 'available', 'frozen', 'network_fee', 'settled_amount', 'min_amount', 'max_amount', 'fixed'];
const MONEY_FIELD_NUMBER = new RegExp(`"(${MONEY_FIELDS.join('|')})"(\\s*:\\s*)(-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)`, 'g');

/**
 * JSON.parse that keeps each money field's number as its literal text (`"amount": 1500.50` →
 * `"1500.50"`), so no amount is ever a double. Inside a JSON string every `"` is escaped, so
 * the pattern `"amount":` can only match a real key. (JSON.parse's reviver gets the source
 * text only in newer engines; this works in every browser the console supports.)
 */
export function parseJsonKeepingMoney(text: string): unknown {
  return JSON.parse(text.replace(MONEY_FIELD_NUMBER, (_match, key: string, separator: string, literal: string) => `"${key}"${separator}"${literal}"`));
}

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A JSON body whose amounts are JSON numbers with exactly the digits the person typed (the
 * back office reads `amount` exactly as a decimal, docs/api): JSON.stringify would pass
 * them through a double. Only plain decimals are accepted, so the text cannot carry anything else.
 */
export function jsonWithDecimals(fields: Record<string, unknown>, decimals: Record<string, string>): string {
  const parts = [JSON.stringify(fields).slice(1, -1)].filter((part) => part !== '');
  for (const [name, literal] of Object.entries(decimals)) {
    const text = literal.trim();
    if (!PLAIN_DECIMAL.test(text)) throw new Error(`${name} must be a plain decimal number such as 1500.50`);
    parts.push(`${JSON.stringify(name)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}
