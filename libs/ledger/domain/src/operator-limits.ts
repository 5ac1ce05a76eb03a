import { DomainError } from '@mp/shared-util-errors';
import { formatAmountMinor, isKnownCurrency } from '@mp/shared-util-money';

/**
 * Limits on what one operator can do with a merchant's money (issue 20): a conversion's rate
 * must lie within a band around the configured reference rate of its pair, its amount under the
 * pair's cap, and a conversion or deposit adjustment above the currency's threshold waits for a
 * second operator (operator-approval.ts). Pure rules on configuration read at boot, so the
 * service and the specs decide the same way.
 */

/** A currency pair as configuration and errors name it: `RUB/USDT`. */
export type CurrencyPair = `${string}/${string}`;

export function pairOf(fromCurrency: string, toCurrency: string): CurrencyPair {
  return `${fromCurrency}/${toCurrency}`;
}

/** An exact positive decimal: `digits × 10^-scale`. */
export interface ExactDecimal {
  digits: bigint;
  scale: number;
}

export interface OperatorMoneyLimits {
  /** The rate operators are expected to use per pair (units of the target per unit of the source). A pair without one cannot be converted. */
  referenceRates: ReadonlyMap<CurrencyPair, ExactDecimal>;
  /** How far a conversion's rate may stray from the reference, either way, in basis points. */
  rateBandBasisPoints: number;
  /** The largest conversion per pair, in minor units of the source currency. */
  conversionCapsMinor: ReadonlyMap<CurrencyPair, bigint>;
  /**
   * Per currency, the largest amount (minor units, absolute) one operator may move alone; above
   * it a second operator approves. A currency without a threshold always needs the second one.
   */
  approvalThresholdsMinor: ReadonlyMap<string, bigint>;
  /** How long a request waits for its second operator before it lapses. */
  approvalTtlMs: number;
}

const DECIMAL_PATTERN = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,18}))?$/;

/** A decimal string as an exact fraction, or null when it is not one (the quote reports bad rates in detail). */
export function parseExactDecimal(text: string): ExactDecimal | null {
  const match = DECIMAL_PATTERN.exec(text);
  if (!match) return null;
  const fraction = match[2] ?? '';
  return { digits: BigInt(match[1] + fraction), scale: fraction.length };
}

function formatExactDecimal(value: ExactDecimal): string {
  if (value.scale === 0) return value.digits.toString();
  const text = value.digits.toString().padStart(value.scale + 1, '0');
  return `${text.slice(0, -value.scale)}.${text.slice(-value.scale)}`.replace(/\.?0+$/, '');
}

/**
 * Refuses a conversion whose rate is outside the band around its pair's reference, or whose
 * amount is over the pair's cap: VALIDATION_ERROR naming the field, before anything is written.
 */
export function assertConversionWithinLimits(
  limits: OperatorMoneyLimits,
  conversion: { fromCurrency: string; toCurrency: string; fromAmountMinor: bigint; rate: string },
): void {
  const pair = pairOf(conversion.fromCurrency, conversion.toCurrency);
  const reference = limits.referenceRates.get(pair);
  const cap = limits.conversionCapsMinor.get(pair);
  if (!reference || cap === undefined) {
    throw new DomainError('VALIDATION_ERROR', 'The conversion is not valid', [
      { field: 'to_currency', issue: `conversions ${pair} are not configured (no reference rate or cap)` },
    ]);
  }
  const details = [];
  const rate = parseExactDecimal(conversion.rate);
  if (rate && !withinBand(rate, reference, limits.rateBandBasisPoints)) {
    details.push({
      field: 'rate',
      issue: `must be within ${limits.rateBandBasisPoints} basis points of the reference rate ${formatExactDecimal(reference)} for ${pair}`,
    });
  }
  if (conversion.fromAmountMinor > cap) {
    details.push({
      field: 'amount',
      issue: `exceeds the cap of ${formatAmountMinor(cap, conversion.fromCurrency)} ${conversion.fromCurrency} per conversion ${pair}`,
    });
  }
  if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The conversion is outside the operator limits', details);
}

/** |rate − reference| ≤ reference × band / 10 000, compared exactly on a common scale. */
function withinBand(rate: ExactDecimal, reference: ExactDecimal, bandBasisPoints: number): boolean {
  const scale = Math.max(rate.scale, reference.scale);
  const rateDigits = rate.digits * 10n ** BigInt(scale - rate.scale);
  const referenceDigits = reference.digits * 10n ** BigInt(scale - reference.scale);
  const distance = rateDigits > referenceDigits ? rateDigits - referenceDigits : referenceDigits - rateDigits;
  return distance * 10_000n <= referenceDigits * BigInt(bandBasisPoints);
}

/** Whether moving `amountMinor` (either sign) of `currency` needs a second operator. */
export function needsSecondOperator(limits: OperatorMoneyLimits, currency: string, amountMinor: bigint): boolean {
  const threshold = limits.approvalThresholdsMinor.get(currency);
  const magnitude = amountMinor < 0n ? -amountMinor : amountMinor;
  return threshold === undefined || magnitude > threshold;
}

////////// Configuration text

/**
 * Parses `RUB/USDT:0.0105,USDT/RUB:95` (reference rates) or `RUB/USDT:1000000000` (caps), so
 * the app's config can report every bad entry at boot. Hand-written: a two-level list is too
 * small a format for a parser library.
 */
export function parsePairTable<Value>(
  text: string,
  parseValue: (value: string) => Value | null,
  valueIssue: string,
): { table: Map<CurrencyPair, Value>; problems: string[] } {
  return parseTable(
    text,
    (key) => {
      const [from, to, ...rest] = key.split('/');
      return from && to && rest.length === 0 && isKnownCurrency(from) && isKnownCurrency(to) && from !== to ? pairOf(from, to) : null;
    },
    parseValue,
    'a pair of two different supported currencies, e.g. RUB/USDT',
    valueIssue,
  );
}

/** Parses `RUB:10000000,USDT:1000000000` (a per-currency amount in minor units). */
export function parseCurrencyTable(text: string): { table: Map<string, bigint>; problems: string[] } {
  return parseTable(text, (key) => (isKnownCurrency(key) ? key : null), parseMinorUnits, 'a supported currency, e.g. RUB', 'a whole number of minor units');
}

export function parseMinorUnits(text: string): bigint | null {
  return /^[0-9]{1,30}$/.test(text) ? BigInt(text) : null;
}

export function parsePositiveRate(text: string): ExactDecimal | null {
  const rate = parseExactDecimal(text);
  return rate && rate.digits > 0n ? rate : null;
}

function parseTable<Key extends string, Value>(
  text: string,
  parseKey: (key: string) => Key | null,
  parseValue: (value: string) => Value | null,
  keyIssue: string,
  valueIssue: string,
): { table: Map<Key, Value>; problems: string[] } {
  const table = new Map<Key, Value>();
  const problems: string[] = [];
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const separator = entry.lastIndexOf(':');
    const key = parseKey(entry.slice(0, Math.max(separator, 0)).trim());
    const value = separator < 0 ? null : parseValue(entry.slice(separator + 1).trim());
    if (key === null) problems.push(`"${entry}": the key must be ${keyIssue}`);
    else if (value === null) problems.push(`"${entry}": the value must be ${valueIssue}`);
    else if (table.has(key)) problems.push(`"${entry}": ${key} is given twice`);
    else table.set(key, value);
  }
  return { table, problems };
}
