import { AMOUNT_UNITS_MAX, currencyScale, isKnownCurrency, parseAmountLiteral, type AmountParseFailure } from '@mp/shared-util-money';
import { Transform } from 'class-transformer';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { CURRENCY_CODE_PATTERN, ORDER_ID_PATTERN, ORDER_ID_RULE } from './ids';
import { JsonNumberLiteral } from './lossless-json';

/**
 * Reusable field rules for request classes. Each is one class-validator constraint with one
 * issue text, so a bad field gets one clear sentence rather than a list of every rule it broke.
 */

type Check = (value: unknown, args: ValidationArguments) => string | null;

/** A constraint from a function that returns the issue, or null when the value is fine. */
export function FieldRule(name: string, check: Check, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => check(value, args) === null,
        defaultMessage: (args?: ValidationArguments) => (args ? (check(args.value, args) ?? 'is not valid') : 'is not valid'),
      },
    });
  };
}

/** A string matching the pattern; anything else (numbers included) gets the issue. */
export function MatchesPattern(pattern: RegExp, issue: string, options?: ValidationOptions): PropertyDecorator {
  return FieldRule('matchesPattern', (value) => (typeof value === 'string' && pattern.test(value) ? null : issue), options);
}

export function IsOrderId(options?: ValidationOptions): PropertyDecorator {
  return MatchesPattern(ORDER_ID_PATTERN, ORDER_ID_RULE, options);
}

/** A currency code the platform knows (its scale is needed to read amounts). */
export function IsKnownCurrency(issue = 'must be a currency code, e.g. RUB', options?: ValidationOptions): PropertyDecorator {
  return FieldRule(
    'isKnownCurrency',
    (value) => {
      if (typeof value !== 'string' || !CURRENCY_CODE_PATTERN.test(value)) return issue;
      return isKnownCurrency(value) ? null : `${value} is not a supported currency`;
    },
    options,
  );
}

/**
 * What IsPlainText takes, but its length, as one regular expression for the OpenAPI description:
 * at least one character that is not white space, and no control character but tab and line breaks.
 */
// eslint-disable-next-line no-control-regex
export const PLAIN_TEXT_PATTERN = /^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*[^\s\x00-\x08\x0b\x0c\x0e-\x1f\x7f][^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$/;

/**
 * Text stored as is (names, reasons, payment details): not blank, at most `max` characters, and
 * no control characters other than tab and line breaks (PostgreSQL refuses NUL in text).
 */
export function IsPlainText(max: number, options?: ValidationOptions): PropertyDecorator {
  return FieldRule(
    'isPlainText',
    (value) => {
      // eslint-disable-next-line no-control-regex
      if (typeof value !== 'string' || value.trim() === '' || value.length > max || /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(value))
        return `must be 1 to ${max} characters`;
      return null;
    },
    options,
  );
}

const AMOUNT_ISSUES: Record<AmountParseFailure, string> = {
  not_a_number: 'must be a JSON number, e.g. 1500.00',
  not_positive: 'must be greater than 0',
  too_many_decimals: 'has more decimals than the currency allows',
  too_large: 'must be at most 1000000000000',
};

/**
 * A money amount as a JSON number, read exactly from its literal text (needs the lossless body
 * parser) in the currency named by `currencyField`. With `signed`, a negative amount is allowed
 * (it takes away). When the currency itself is wrong, only the currency is reported.
 */
export function IsDecimalAmount(currencyField: string, options: ValidationOptions & { signed?: boolean } = {}): PropertyDecorator {
  return FieldRule(
    'isDecimalAmount',
    (value, args) => {
      if (!(value instanceof JsonNumberLiteral)) return options.signed ? 'must be a JSON number; negative takes away' : AMOUNT_ISSUES.not_a_number;
      const currency = (args.object as Record<string, unknown>)[currencyField];
      if (typeof currency !== 'string' || !isKnownCurrency(currency)) return null;
      const parsed = decimalAmountToMinor(value, currency, options.signed ?? false);
      return parsed.ok ? null : AMOUNT_ISSUES[parsed.reason];
    },
    options,
  );
}

/** The minor units of an amount `IsDecimalAmount` accepted. */
export function decimalAmountToMinor(
  amount: JsonNumberLiteral,
  currency: string,
  signed = false,
): { ok: true; amountMinor: bigint } | { ok: false; reason: AmountParseFailure } {
  const negative = signed && amount.literal.startsWith('-');
  const parsed = parseAmountLiteral(negative ? amount.literal.slice(1) : amount.literal, currency);
  return parsed.ok && negative ? { ok: true, amountMinor: -parsed.amountMinor } : parsed;
}

export type MinorUnitsSign = 'positive' | 'non-negative' | 'non-zero';

const MINOR_UNITS: Record<MinorUnitsSign, { pattern: RegExp; description: string }> = {
  positive: { pattern: /^[1-9][0-9]*$/, description: 'a positive integer' },
  'non-negative': { pattern: /^(0|[1-9][0-9]*)$/, description: 'a non-negative integer' },
  'non-zero': { pattern: /^-?[1-9][0-9]*$/, description: 'a non-zero integer (negative takes away)' },
};

/**
 * Integer minor units as a decimal string (how services send amounts to each other), within
 * the platform's largest amount in the currency named by `currencyField` when it is known.
 */
export function IsMinorUnits(sign: MinorUnitsSign, currencyField?: string, options?: ValidationOptions): PropertyDecorator {
  const { pattern, description } = MINOR_UNITS[sign];
  return FieldRule(
    'isMinorUnits',
    (value, args) => {
      if (typeof value !== 'string' || value.length > 45 || !pattern.test(value)) return `must be ${description} in minor units, as a decimal string`;
      const currency = currencyField ? (args.object as Record<string, unknown>)[currencyField] : undefined;
      if (typeof currency !== 'string' || !isKnownCurrency(currency)) return null;
      const maxMinor = AMOUNT_UNITS_MAX * 10n ** BigInt(currencyScale(currency));
      const amountMinor = BigInt(value);
      return amountMinor > maxMinor || -amountMinor > maxMinor ? `must not exceed ${maxMinor} minor units` : null;
    },
    options,
  );
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO 8601 date or date-time (RFC 3339 when it has a time). */
export function IsIsoDateTime(issue = 'must be an ISO 8601 date or date-time', options?: ValidationOptions): PropertyDecorator {
  return FieldRule('isIsoDateTime', (value) => (typeof value === 'string' && ISO_8601.test(value) && !Number.isNaN(Date.parse(value)) ? null : issue), options);
}

const CALENDAR_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day as `YYYY-MM-DD` that exists (no 2026-02-30): Date.parse alone rolls such a day over. */
export function IsCalendarDay(issue = 'must be a calendar day as YYYY-MM-DD, e.g. 2026-01-31', options?: ValidationOptions): PropertyDecorator {
  return FieldRule(
    'isCalendarDay',
    (value) => {
      const match = typeof value === 'string' ? CALENDAR_DAY.exec(value) : null;
      if (!match) return issue;
      const day = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
      return day.toISOString().slice(0, 10) === value ? null : issue;
    },
    options,
  );
}

/** This date is not after the one in `otherField` (checked only when both are valid dates). */
export function NotAfter(otherField: string, issue: string, options?: ValidationOptions): PropertyDecorator {
  return FieldRule(
    'notAfter',
    (value, args) => {
      const other = (args.object as Record<string, unknown>)[otherField];
      if (typeof value !== 'string' || typeof other !== 'string') return null;
      const [mine, theirs] = [Date.parse(value), Date.parse(other)];
      return Number.isNaN(mine) || Number.isNaN(theirs) || mine <= theirs ? null : issue;
    },
    options,
  );
}

/**
 * A whole number from `min` to `max`: a JSON number in a body (from the lossless parser), or a
 * string of digits in a query string.
 */
export function IsWholeNumberBetween(min: number, max: number, from: 'json' | 'query', options?: ValidationOptions): PropertyDecorator {
  const issue = `must be a whole number from ${min} to ${max}`;
  return FieldRule(
    'isWholeNumberBetween',
    (value) => {
      const literal = from === 'json' ? (value instanceof JsonNumberLiteral ? value.literal : null) : typeof value === 'string' ? value : null;
      if (literal === null || !/^(0|[1-9]\d{0,8})$/.test(literal)) return issue;
      const number = Number(literal);
      return number >= min && number <= max ? null : issue;
    },
    options,
  );
}

/** One of a fixed list of strings. */
export function IsOneOf(values: readonly string[], issue = `must be one of ${values.join(', ')}`, options?: ValidationOptions): PropertyDecorator {
  return FieldRule('isOneOf', (value) => (typeof value === 'string' && values.includes(value) ? null : issue), options);
}

/** Leading and trailing white space removed before validation (names, reasons). */
export function Trim(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)) as PropertyDecorator;
}

/** A string with at least one character (the ids one service's events name for another). */
export function IsNonEmptyString(options?: ValidationOptions): PropertyDecorator {
  return FieldRule('isNonEmptyString', (value) => (typeof value === 'string' && value !== '' ? null : 'must be a non-empty string'), options);
}

/** A stream's position in an event: a whole number from 1. */
export function IsStreamVersion(options?: ValidationOptions): PropertyDecorator {
  return FieldRule(
    'isStreamVersion',
    (value) => (typeof value === 'number' && Number.isInteger(value) && value >= 1 ? null : 'must be a whole number from 1'),
    options,
  );
}

/** A JSON object (not an array, not null): an event's state snapshot, read as a whole. */
export function IsJsonObject(options?: ValidationOptions): PropertyDecorator {
  return FieldRule('isJsonObject', (value) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'must be an object'), options);
}

/** This minor-units string is not more than the one in `otherField` (checked only when both are integer strings). */
export function NotMoreThan(otherField: string, issue: string, options?: ValidationOptions): PropertyDecorator {
  return FieldRule(
    'notMoreThan',
    (value, args) => {
      const other = (args.object as Record<string, unknown>)[otherField];
      const integer = /^-?[0-9]+$/;
      if (typeof value !== 'string' || typeof other !== 'string' || !integer.test(value) || !integer.test(other)) return null;
      return BigInt(value) <= BigInt(other) ? null : issue;
    },
    options,
  );
}
