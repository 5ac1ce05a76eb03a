import fc from 'fast-check';
import { calculateFeeMinor } from './fee';

describe('calculateFeeMinor', () => {
  it('charges only the fixed part at 0 basis points', () => {
    expect(calculateFeeMinor(150_000n, 0, 0n)).toBe(0n);
    expect(calculateFeeMinor(150_000n, 0, 50n)).toBe(50n);
  });

  it('charges the exact percentage when it is a whole number of minor units', () => {
    // 2.5 % of 100.00 is 2.50.
    expect(calculateFeeMinor(10_000n, 250, 0n)).toBe(250n);
    // 2.9 % + 0.30 of 10.00 USD is 0.59.
    expect(calculateFeeMinor(1_000n, 290, 30n)).toBe(59n);
  });

  it("rounds the percentage part down, in the merchant's favour", () => {
    // 2.5 % of 9.99 is 0.24975: the merchant pays 0.24, never 0.25.
    expect(calculateFeeMinor(999n, 250, 0n)).toBe(24n);
    // 99.99 % of one minor unit is less than one minor unit: nothing.
    expect(calculateFeeMinor(1n, 9_999, 0n)).toBe(0n);
    // The fixed part is added after rounding, never rounded itself.
    expect(calculateFeeMinor(999n, 250, 7n)).toBe(31n);
  });

  it('charges the whole amount at 10 000 basis points', () => {
    expect(calculateFeeMinor(12_345n, 10_000, 0n)).toBe(12_345n);
  });

  it('charges nothing on nothing but the fixed part', () => {
    expect(calculateFeeMinor(0n, 250, 0n)).toBe(0n);
    expect(calculateFeeMinor(0n, 250, 25n)).toBe(25n);
  });

  it("stays exact for 10^12 units of a scale-6 asset (beyond a double's 2^53)", () => {
    const amountMinor = 10n ** 12n * 10n ** 6n;
    expect(calculateFeeMinor(amountMinor, 290, 0n)).toBe(29n * 10n ** 15n);
    // 1 bp of 10^18 − 1 is 99 999 999 999 999.9999: floor drops the fraction.
    expect(calculateFeeMinor(amountMinor - 1n, 1, 0n)).toBe(10n ** 14n - 1n);
    expect(calculateFeeMinor(amountMinor - 1n, 1, 5_000_000n)).toBe(10n ** 14n - 1n + 5_000_000n);
  });

  it('refuses rates that are not whole basis points from 0 to 100 %', () => {
    expect(() => calculateFeeMinor(100n, 2.5, 0n)).toThrow('fee rate');
    expect(() => calculateFeeMinor(100n, -1, 0n)).toThrow('fee rate');
    expect(() => calculateFeeMinor(100n, 10_001, 0n)).toThrow('fee rate');
    expect(() => calculateFeeMinor(100n, Number.NaN, 0n)).toThrow('fee rate');
  });

  it('refuses negative amounts and negative fixed fees', () => {
    expect(() => calculateFeeMinor(-1n, 250, 0n)).toThrow('negative amount');
    expect(() => calculateFeeMinor(100n, 250, -1n)).toThrow('negative fixed fee');
  });

  it('is the exact percentage minus less than one minor unit, for any amount up to 10^18', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 18n }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        (amountMinor, rateBasisPoints, fixedMinor) => {
          const percentageFeeMinor = calculateFeeMinor(amountMinor, rateBasisPoints, fixedMinor) - fixedMinor;
          const exactTimes10000 = amountMinor * BigInt(rateBasisPoints);
          // percentage ≤ exact < percentage + 1, all scaled by 10 000 to stay in integers.
          expect(percentageFeeMinor * 10_000n <= exactTimes10000).toBe(true);
          expect(exactTimes10000 < (percentageFeeMinor + 1n) * 10_000n).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
