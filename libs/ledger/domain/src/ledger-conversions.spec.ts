import { DeciderSpecification } from '@mp/shared-decider';
import { DomainError } from '@mp/shared-util-errors';
import { quoteConversion, type ConversionTerms } from './ledger-conversions';
import { assertBalanced } from './ledger-postings';
import { balancesOf, ledgerDecider, type CreditPayIn, type LedgerCommand } from './ledger.decider';

const now = new Date('2026-11-23T10:00:00.000Z');
/** Each currency's ledger as the service runs it; every decision's books must balance. */
const ledgerOf = (currency: string) => DeciderSpecification.for(ledgerDecider('m1', currency), { checkEvents: assertBalanced });
const credit = (amountMinor: bigint): CreditPayIn => ({
  type: 'CreditPayIn',
  data: { orderId: 'IN-1', amountMinor, feeMinor: 0n, reason: 'payin_succeeded' },
  metadata: { now },
});
const funded = (currency: string, amountMinor: bigint) => ledgerOf(currency).givenCommands(credit(amountMinor));

function terms(overrides: Partial<ConversionTerms> = {}): ConversionTerms {
  const quote = quoteConversion({ fromCurrency: 'RUB', toCurrency: 'USDT', fromAmountMinor: 10_000_000n, rate: '0.0125', feeBasisPoints: 100 });
  return {
    conversionId: 'CV-1',
    fromCurrency: 'RUB',
    toCurrency: 'USDT',
    ...quote,
    rate: '0.0125',
    operatorId: 'op_1',
    reason: 'merchant asked for USDT',
    ...overrides,
  };
}

describe('quoteConversion', () => {
  it('takes the fee in the source currency (rounded down) and converts the rest exactly, rounding down', () => {
    // 100,000.00 RUB, 1 % fee = 1,000.00 RUB; 99,000.00 × 0.0125 = 1,237.5 USDT exactly.
    expect(quoteConversion({ fromCurrency: 'RUB', toCurrency: 'USDT', fromAmountMinor: 10_000_000n, rate: '0.0125', feeBasisPoints: 100 })).toEqual({
      fromAmountMinor: 10_000_000n,
      feeMinor: 100_000n,
      toAmountMinor: 1_237_500_000n,
    });
    // 0.01 RUB at 1/3 rounds down to 0.003333 USDT, never up.
    expect(quoteConversion({ fromCurrency: 'RUB', toCurrency: 'USDT', fromAmountMinor: 1n, rate: '0.333333333', feeBasisPoints: 0 }).toAmountMinor).toBe(
      3_333n,
    );
  });

  it.each([
    ['0', 'rate'],
    ['-1', 'rate'],
    ['1e3', 'rate'],
    ['0.0000000000000000001', 'rate'],
  ])('refuses the rate %s', (rate, field) => {
    expect(() => quoteConversion({ fromCurrency: 'RUB', toCurrency: 'USDT', fromAmountMinor: 100n, rate, feeBasisPoints: 0 })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ field })] }),
    );
  });

  it('refuses converting into the same currency or into less than one minor unit', () => {
    expect(() => quoteConversion({ fromCurrency: 'RUB', toCurrency: 'RUB', fromAmountMinor: 100n, rate: '1', feeBasisPoints: 0 })).toThrow(DomainError);
    expect(() => quoteConversion({ fromCurrency: 'USDT', toCurrency: 'RUB', fromAmountMinor: 1n, rate: '1', feeBasisPoints: 0 })).toThrow(
      expect.objectContaining({ details: [{ field: 'amount', issue: 'converts to less than one minor unit of RUB' }] }),
    );
  });
});

describe('conversion legs', () => {
  it('debits the source settlement into fx and fee revenue, and credits the target settlement from fx; each currency sums to zero', () => {
    const conversion = terms();
    const source = funded('RUB', 20_000_000n).when({ type: 'DebitConversion', data: conversion, metadata: { now } }).outcome().state;
    expect(balancesOf(source).settlementAvailable).toBe(10_000_000n);
    expect(source.balances.fx).toBe(9_900_000n);
    expect(source.balances.fee_revenue).toBe(100_000n);

    const target = ledgerOf('USDT').given([]).when({ type: 'CreditConversion', data: conversion, metadata: { now } }).outcome().state;
    expect(balancesOf(target).settlementAvailable).toBe(1_237_500_000n);
    expect(target.balances.fx).toBe(-1_237_500_000n);
  });

  it('is idempotent by conversion id: the same terms again change nothing, other terms are refused', () => {
    const command: LedgerCommand = { type: 'DebitConversion', data: terms(), metadata: { now } };
    const once = ledgerOf('RUB').givenCommands(credit(20_000_000n), command);
    once.when(command).thenNothingHappens();
    once.when({ ...command, data: terms({ rate: '0.013', toAmountMinor: 1_287_000_000n }) }).thenThrows('VALIDATION_ERROR', 'conversion_id');
  });

  it('refuses a conversion the available balance does not cover, and one without a reason', () => {
    funded('RUB', 9_999_999n).when({ type: 'DebitConversion', data: terms(), metadata: { now } }).thenThrows('INSUFFICIENT_FUNDS', 'amount');
    funded('RUB', 20_000_000n)
      .when({ type: 'DebitConversion', data: terms({ reason: ' ' }), metadata: { now } })
      .thenThrows('VALIDATION_ERROR', 'reason');
  });

  it('treats a leg run on the wrong currency as a bug', () => {
    ledgerOf('RUB').given([]).when({ type: 'CreditConversion', data: terms(), metadata: { now } }).thenBreaksInvariant('run on the ledger of RUB');
  });
});
