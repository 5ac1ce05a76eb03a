/** 100 % in basis points (1 bp = 0.01 %). */
export const BASIS_POINTS_PER_UNIT = 10_000;

/**
 * The fee of a method entry (docs/api/money-and-fees.md) for an amount:
 * floor(amountMinor × feeRateBasisPoints / 10 000) + feeFixedMinor.
 *
 * The percentage part is rounded DOWN, in the merchant's favour: the platform never charges
 * a fraction of a minor unit, and the same inputs always give the same fee, so a recomputed
 * fee (on redelivery or replay) matches the one already booked. Everything is bigint, so
 * 10^12 units at scale 6 (10^18 minor units) stays exact.
 */
export function calculateFeeMinor(amountMinor: bigint, feeRateBasisPoints: number, feeFixedMinor: bigint): bigint {
  // Bad inputs here are catalog or caller bugs, not merchant errors: crash loudly.
  if (amountMinor < 0n) throw new Error(`fee of a negative amount ${amountMinor}`);
  if (!Number.isSafeInteger(feeRateBasisPoints) || feeRateBasisPoints < 0 || feeRateBasisPoints > BASIS_POINTS_PER_UNIT) {
    throw new Error(`fee rate must be an integer from 0 to ${BASIS_POINTS_PER_UNIT} basis points, got ${feeRateBasisPoints}`);
  }
  if (feeFixedMinor < 0n) throw new Error(`negative fixed fee ${feeFixedMinor}`);

  // bigint division truncates toward zero, which is floor for the non-negative values here.
  const percentageFeeMinor = (amountMinor * BigInt(feeRateBasisPoints)) / BigInt(BASIS_POINTS_PER_UNIT);
  return percentageFeeMinor + feeFixedMinor;
}
