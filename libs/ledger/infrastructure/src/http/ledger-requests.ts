import type { ConversionRequest, DepositAdjustmentRequest, PlaceHoldRequest } from '@mp/contracts-ledger';
import { AMOUNT_UNITS_MAX, currencyScale, isKnownCurrency } from '@mp/shared-util-money';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';

/**
 * Validation of the internal API's bodies and queries. The callers are other services and the
 * gateway, which validated their own input; anything malformed here is a bug on their side,
 * answered 400 VALIDATION_ERROR with every problem listed, and never reaches the decider.
 */

const ID_LENGTH_MAX = 200;
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;
const NON_NEGATIVE_INTEGER = /^(0|[1-9][0-9]*)$/;
const SIGNED_NON_ZERO_INTEGER = /^-?[1-9][0-9]*$/;

export interface ParsedPlaceHold {
  holdId: string;
  merchantId: string;
  currency: string;
  amountMinor: bigint;
  feeMinor: bigint;
  reference: { kind: 'payment_order' | 'withdrawal'; id: string };
}

export interface ParsedDepositAdjustment {
  adjustmentId: string;
  currency: string;
  amountMinor: bigint;
  reason: string;
  operatorId: string;
}

class Checker {
  readonly details: ErrorDetail[] = [];

  constructor(private readonly body: Record<string, unknown>) {}

  unknownFields(allowed: readonly string[]): void {
    for (const key of Object.keys(this.body)) if (!allowed.includes(key)) this.details.push({ field: key, issue: 'is not a known field' });
  }

  id(field: string, value: unknown = this.body[field]): string {
    if (typeof value !== 'string' || value.length === 0 || value.length > ID_LENGTH_MAX) {
      this.details.push({ field, issue: `must be a non-empty string of at most ${ID_LENGTH_MAX} characters` });
      return '';
    }
    return value;
  }

  text(field: string, maxLength: number): string {
    const value = this.body[field];
    if (typeof value !== 'string' || value.trim() === '' || value.length > maxLength) {
      this.details.push({ field, issue: `must be a non-blank string of at most ${maxLength} characters` });
      return '';
    }
    return value;
  }

  currency(field = 'currency'): string {
    const value = this.body[field];
    if (typeof value !== 'string' || !isKnownCurrency(value)) {
      this.details.push({ field, issue: 'must be a supported currency code' });
      return '';
    }
    return value;
  }

  /** Minor units as a decimal string, within the platform's largest amount in that currency. */
  amount(field: string, pattern: RegExp, currency: string, description: string): bigint {
    const value = this.body[field];
    if (typeof value !== 'string' || !pattern.test(value) || value.length > 45) {
      this.details.push({ field, issue: `must be ${description} in minor units, as a decimal string` });
      return 0n;
    }
    const amountMinor = BigInt(value);
    if (currency !== '') {
      const maxMinor = AMOUNT_UNITS_MAX * 10n ** BigInt(currencyScale(currency));
      if (amountMinor > maxMinor || -amountMinor > maxMinor) this.details.push({ field, issue: `must not exceed ${maxMinor} minor units` });
    }
    return amountMinor;
  }

  assertValid(message: string): void {
    if (this.details.length > 0) throw new DomainError('VALIDATION_ERROR', message, this.details);
  }
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError('VALIDATION_ERROR', 'The body must be a JSON object', [{ field: 'body', issue: 'must be a JSON object' }]);
  }
  return body as Record<string, unknown>;
}

const PLACE_HOLD_FIELDS: ReadonlyArray<keyof PlaceHoldRequest> = ['hold_id', 'merchant_id', 'currency', 'amount_minor', 'fee_minor', 'reference'];

export function parsePlaceHoldRequest(body: unknown): ParsedPlaceHold {
  const fields = objectBody(body);
  const checker = new Checker(fields);
  checker.unknownFields(PLACE_HOLD_FIELDS);
  const holdId = checker.id('hold_id');
  const merchantId = checker.id('merchant_id');
  const currency = checker.currency();
  const amountMinor = checker.amount('amount_minor', POSITIVE_INTEGER, currency, 'a positive integer');
  const feeMinor = checker.amount('fee_minor', NON_NEGATIVE_INTEGER, currency, 'a non-negative integer');
  const reference = fields['reference'] as Record<string, unknown> | null | undefined;
  let kind: 'payment_order' | 'withdrawal' = 'payment_order';
  let referenceId = '';
  if (typeof reference !== 'object' || reference === null || Array.isArray(reference)) {
    checker.details.push({ field: 'reference', issue: 'must be an object with kind and id' });
  } else {
    for (const key of Object.keys(reference)) if (key !== 'kind' && key !== 'id') checker.details.push({ field: `reference.${key}`, issue: 'is not a known field' });
    if (reference['kind'] === 'payment_order' || reference['kind'] === 'withdrawal') kind = reference['kind'];
    else checker.details.push({ field: 'reference.kind', issue: 'must be payment_order or withdrawal' });
    referenceId = checker.id('reference.id', reference['id']);
  }
  checker.assertValid('The hold request is not valid');
  return { holdId, merchantId, currency, amountMinor, feeMinor, reference: { kind, id: referenceId } };
}

const ADJUSTMENT_FIELDS: ReadonlyArray<keyof DepositAdjustmentRequest> = ['adjustment_id', 'currency', 'amount_minor', 'reason', 'operator_id'];

export function parseDepositAdjustmentRequest(body: unknown): ParsedDepositAdjustment {
  const checker = new Checker(objectBody(body));
  checker.unknownFields(ADJUSTMENT_FIELDS);
  const adjustmentId = checker.id('adjustment_id');
  const currency = checker.currency();
  const amountMinor = checker.amount('amount_minor', SIGNED_NON_ZERO_INTEGER, currency, 'a non-zero integer (negative takes away)');
  const reason = checker.text('reason', 1_000);
  const operatorId = checker.id('operator_id');
  checker.assertValid('The deposit adjustment is not valid');
  return { adjustmentId, currency, amountMinor, reason, operatorId };
}

/** An optional RFC 3339 timestamp of a query string. */
export function optionalTimestamp(query: Record<string, unknown>, field: string, details: ErrorDetail[]): Date | undefined {
  const value = query[field];
  if (value === undefined || value === '') return undefined;
  const parsed = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value) ? new Date(value) : null;
  if (!parsed || Number.isNaN(parsed.getTime())) {
    details.push({ field, issue: 'must be an RFC 3339 timestamp, e.g. 2026-01-31T00:00:00Z' });
    return undefined;
  }
  return parsed;
}

export function optionalCurrency(query: Record<string, unknown>, details: ErrorDetail[]): string | undefined {
  const value = query['currency'];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !isKnownCurrency(value)) {
    details.push({ field: 'currency', issue: 'must be a supported currency code' });
    return undefined;
  }
  return value;
}

export interface ParsedConversion {
  conversionId: string;
  fromCurrency: string;
  toCurrency: string;
  amountMinor: bigint;
  rate: string;
  reason: string;
  operatorId: string;
}

const CONVERSION_FIELDS: ReadonlyArray<keyof ConversionRequest> = ['conversion_id', 'from_currency', 'to_currency', 'amount_minor', 'rate', 'reason', 'operator_id'];

/** The rate is checked exactly by the domain's quote; here only that it is a string. */
export function parseConversionRequest(body: unknown): ParsedConversion {
  const fields = objectBody(body);
  const checker = new Checker(fields);
  checker.unknownFields(CONVERSION_FIELDS);
  const conversionId = checker.id('conversion_id');
  const fromCurrency = checker.currency('from_currency');
  const toCurrency = checker.currency('to_currency');
  const amountMinor = checker.amount('amount_minor', POSITIVE_INTEGER, fromCurrency, 'a positive integer');
  const rate = typeof fields['rate'] === 'string' ? fields['rate'] : '';
  if (rate === '') checker.details.push({ field: 'rate', issue: 'must be a decimal string, e.g. "0.0108"' });
  const reason = checker.text('reason', 1_000);
  const operatorId = checker.id('operator_id');
  checker.assertValid('The conversion is not valid');
  return { conversionId, fromCurrency, toCurrency, amountMinor, rate, reason, operatorId };
}
