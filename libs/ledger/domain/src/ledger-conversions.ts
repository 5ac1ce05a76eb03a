import { DomainError } from '@mp/shared-util-errors';
import { calculateFeeMinor, currencyScale, formatAmountMinor } from '@mp/shared-util-money';
import type { LedgerCommandMetadata } from './ledger-command-metadata';
import type { AccountBalances, Posting, PostingReference } from './ledger-postings';

/**
 * Conversions (docs/operations/ledger.md, conversions): an operator moves a merchant's
 * money from one settlement currency into another (a fiat balance into a crypto asset) at an
 * explicit rate, with the platform's conversion fee. Each currency is its own ledger stream, so
 * a conversion is two legs, each balanced within its currency through the platform's `fx`
 * account: the source leg takes the gross amount from settlement (net to `fx`, fee to
 * `fee_revenue`), the target leg pays the converted amount from `fx` into settlement. The
 * caller books both legs in one transaction; each leg is idempotent by `conversionId`.
 *
 * Kept apart from ledger.decider.ts so that conversions stay an addition to the decider: the
 * decider only routes the two commands and two events here.
 */

////////// Quote

export interface ConversionQuote {
  /** The gross amount taken from the source settlement balance. */
  fromAmountMinor: bigint;
  feeMinor: bigint;
  /** floor((gross − fee) × rate), in the target currency's minor units. */
  toAmountMinor: bigint;
}

const RATE_PATTERN = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,18})?$/;

/**
 * The amounts of a conversion, exactly (bigint, no floating point). `rate` is how many units of
 * the target currency one unit of the source buys, as a decimal string. The fee is taken in
 * the source currency, rounded down like method fees; the converted amount is rounded down,
 * in the platform's favour by less than one minor unit of the target.
 */
export function quoteConversion(input: {
  fromCurrency: string;
  toCurrency: string;
  fromAmountMinor: bigint;
  rate: string;
  feeBasisPoints: number;
}): ConversionQuote {
  const details = [];
  if (input.fromCurrency === input.toCurrency) details.push({ field: 'to_currency', issue: 'must differ from from_currency' });
  if (input.fromAmountMinor <= 0n) details.push({ field: 'amount', issue: 'must be greater than 0' });
  const match = RATE_PATTERN.exec(input.rate);
  if (!match || /^0(\.0*)?$/.test(input.rate))
    details.push({ field: 'rate', issue: 'must be a positive decimal string with at most 18 decimals, e.g. "0.0108"' });
  if (details.length > 0 || !match) throw new DomainError('VALIDATION_ERROR', 'The conversion is not valid', details);

  const fraction = (match[2] ?? '.').slice(1);
  const rateNumerator = BigInt(match[1] + fraction);
  const rateDenominator = 10n ** BigInt(fraction.length);
  const feeMinor = calculateFeeMinor(input.fromAmountMinor, input.feeBasisPoints, 0n);
  const netMinor = input.fromAmountMinor - feeMinor;
  const scaleUp = 10n ** BigInt(currencyScale(input.toCurrency));
  const scaleDown = 10n ** BigInt(currencyScale(input.fromCurrency));
  const toAmountMinor = (netMinor * rateNumerator * scaleUp) / (rateDenominator * scaleDown);
  if (toAmountMinor <= 0n) {
    throw new DomainError('VALIDATION_ERROR', 'The conversion is not valid', [
      { field: 'amount', issue: `converts to less than one minor unit of ${input.toCurrency}` },
    ]);
  }
  return { fromAmountMinor: input.fromAmountMinor, feeMinor, toAmountMinor };
}

////////// Commands and events

/** What both legs record, so a repeat can be told from a different conversion under the same id. */
export interface ConversionTerms {
  conversionId: string;
  fromCurrency: string;
  toCurrency: string;
  fromAmountMinor: bigint;
  feeMinor: bigint;
  toAmountMinor: bigint;
  rate: string;
  operatorId: string;
  reason: string;
}

/** The source leg, on the ledger of `fromCurrency`. */
export interface DebitConversion {
  type: 'DebitConversion';
  data: ConversionTerms;
  metadata: LedgerCommandMetadata;
}

/** The target leg, on the ledger of `toCurrency`. */
export interface CreditConversion {
  type: 'CreditConversion';
  data: ConversionTerms;
  metadata: LedgerCommandMetadata;
}

export type ConversionCommand = DebitConversion | CreditConversion;

type StoredTerms = { [K in keyof ConversionTerms]: ConversionTerms[K] extends bigint ? string : ConversionTerms[K] };

interface ConversionEventData extends StoredTerms {
  merchantId: string;
  currency: string;
  postings: Posting[];
  occurredAt: string;
}

export interface ConversionDebited {
  type: 'ConversionDebited';
  data: ConversionEventData;
}

export interface ConversionCredited {
  type: 'ConversionCredited';
  data: ConversionEventData;
}

export type ConversionEvent = ConversionDebited | ConversionCredited;

export type ConversionLeg = ConversionTerms & { leg: 'debit' | 'credit' };

/**
 * What a conversion leg reads of its ledger. The decider's LedgerState satisfies it, so this
 * file imports nothing from ledger.decider.ts: the decider runs conversions, not the reverse.
 */
export interface ConversionLedgerView {
  merchantId: string;
  currency: string;
  balances: Readonly<Pick<AccountBalances, 'settlement_available'>>;
  conversions: ReadonlyMap<string, ConversionLeg>;
}

////////// Decide

export function decideConversion(command: ConversionCommand, state: ConversionLedgerView): ConversionEvent[] {
  const terms = command.data;
  const leg = command.type === 'DebitConversion' ? 'debit' : 'credit';
  assertTerms(terms, leg === 'debit' ? terms.fromCurrency : terms.toCurrency, state.currency);

  const existing = state.conversions.get(terms.conversionId);
  if (existing) {
    if (existing.leg === leg && sameTerms(existing, terms)) return [];
    throw new DomainError('VALIDATION_ERROR', `conversion ${terms.conversionId} already exists with other terms`, [
      {
        field: 'conversion_id',
        issue: `already used for ${formatAmountMinor(existing.fromAmountMinor, existing.fromCurrency)} ${existing.fromCurrency} → ${existing.toCurrency} at ${existing.rate}`,
      },
    ]);
  }

  const reference: PostingReference = { kind: 'conversion', id: terms.conversionId };
  let postings: Posting[];
  if (leg === 'debit') {
    const available = state.balances.settlement_available;
    if (available < terms.fromAmountMinor) {
      const format = (value: bigint) => `${formatAmountMinor(value, state.currency)} ${state.currency}`;
      throw new DomainError('INSUFFICIENT_FUNDS', 'The available settlement balance does not cover the conversion', [
        { field: 'amount', issue: `${format(terms.fromAmountMinor)} exceeds the available ${format(available)}` },
      ]);
    }
    postings = positive([
      {
        postingId: `conversion:${terms.conversionId}:out`,
        debitAccount: 'settlement_available',
        creditAccount: 'fx',
        amountMinor: terms.fromAmountMinor - terms.feeMinor,
        code: 'CONVERSION_OUT',
        reference,
      },
      {
        postingId: `conversion:${terms.conversionId}:fee`,
        debitAccount: 'settlement_available',
        creditAccount: 'fee_revenue',
        amountMinor: terms.feeMinor,
        code: 'CONVERSION_FEE',
        reference,
      },
    ]);
  } else {
    postings = positive([
      {
        postingId: `conversion:${terms.conversionId}:in`,
        debitAccount: 'fx',
        creditAccount: 'settlement_available',
        amountMinor: terms.toAmountMinor,
        code: 'CONVERSION_IN',
        reference,
      },
    ]);
  }
  const data: ConversionEventData = {
    merchantId: state.merchantId,
    currency: state.currency,
    postings,
    occurredAt: command.metadata.now.toISOString(),
    ...toStored(terms),
  };
  return [leg === 'debit' ? { type: 'ConversionDebited', data } : { type: 'ConversionCredited', data }];
}

/** What evolve records of a conversion event (balances come from the postings). */
export function conversionLegOf(event: ConversionEvent): ConversionLeg {
  return { ...fromStored(event.data), leg: event.type === 'ConversionDebited' ? 'debit' : 'credit' };
}

function assertTerms(terms: ConversionTerms, legCurrency: string, stateCurrency: string): void {
  // The caller (the ledger's conversion service) computed the terms with quoteConversion: a
  // mismatch here is a bug there, not an operator's mistake.
  if (legCurrency !== stateCurrency) throw new Error(`conversion ${terms.conversionId} leg for ${legCurrency} run on the ledger of ${stateCurrency}`);
  if (terms.conversionId === '' || terms.fromAmountMinor <= 0n || terms.toAmountMinor <= 0n || terms.feeMinor < 0n || terms.feeMinor >= terms.fromAmountMinor) {
    throw new Error(`conversion ${terms.conversionId}: malformed terms`);
  }
  const details = [
    ...(terms.reason.trim() === '' ? [{ field: 'reason', issue: 'must say why the money is converted' }] : []),
    ...(terms.operatorId.trim() === '' ? [{ field: 'operator_id', issue: 'must name the operator' }] : []),
  ];
  if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The conversion is not valid', details);
}

function sameTerms(left: ConversionTerms, right: ConversionTerms): boolean {
  return (
    left.fromCurrency === right.fromCurrency &&
    left.toCurrency === right.toCurrency &&
    left.fromAmountMinor === right.fromAmountMinor &&
    left.feeMinor === right.feeMinor &&
    left.toAmountMinor === right.toAmountMinor &&
    left.rate === right.rate
  );
}

function toStored(terms: ConversionTerms): StoredTerms {
  return { ...terms, fromAmountMinor: terms.fromAmountMinor.toString(), feeMinor: terms.feeMinor.toString(), toAmountMinor: terms.toAmountMinor.toString() };
}

function fromStored(data: ConversionEventData): ConversionTerms {
  return {
    conversionId: data.conversionId,
    fromCurrency: data.fromCurrency,
    toCurrency: data.toCurrency,
    fromAmountMinor: BigInt(data.fromAmountMinor),
    feeMinor: BigInt(data.feeMinor),
    toAmountMinor: BigInt(data.toAmountMinor),
    rate: data.rate,
    operatorId: data.operatorId,
    reason: data.reason,
  };
}

function positive(candidates: Array<Omit<Posting, 'amountMinor'> & { amountMinor: bigint }>): Posting[] {
  return candidates.filter((candidate) => candidate.amountMinor > 0n).map((candidate) => ({ ...candidate, amountMinor: candidate.amountMinor.toString() }));
}
