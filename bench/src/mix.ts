/**
 * A weighted workload mix: each draw in [0, 1) names one operation, in proportion to its
 * share. Pure, so the shares can be checked without a server; the caller supplies the draw
 * (Math.random in the benchmark, evenly spaced draws in the spec).
 */
export interface MixShare<Operation extends string> {
  operation: Operation;
  /** Whole percent; the shares of a mix add up to 100. */
  percent: number;
}

/** W5 of the performance design: read-heavy merchant traffic around a pay-in. */
export const W5_MIX = [
  { operation: 'status', percent: 40 },
  { operation: 'balances', percent: 10 },
  { operation: 'list', percent: 5 },
  { operation: 'payIn', percent: 25 },
  { operation: 'payout', percent: 10 },
  { operation: 'withdrawal', percent: 5 },
  { operation: 'cancel', percent: 3 },
  { operation: 'disputeOpen', percent: 2 },
] as const satisfies ReadonlyArray<MixShare<string>>;

export type W5Operation = (typeof W5_MIX)[number]['operation'];

/** Returns the operation a draw in [0, 1) falls on; throws at once for a mix that is not whole percents adding up to 100. */
export function mixPicker<Operation extends string>(mix: ReadonlyArray<MixShare<Operation>>): (draw: number) => Operation {
  const problems = mix.filter((share) => !Number.isInteger(share.percent) || share.percent <= 0).map((share) => `${share.operation}: ${share.percent}`);
  const total = mix.reduce((sum, share) => sum + share.percent, 0);
  if (problems.length > 0 || total !== 100)
    throw new Error(`a mix needs positive whole percents adding up to 100; got ${total} (${problems.join(', ') || 'no bad share'})`);
  // Cumulative upper bounds in whole percent, so no floating-point sum can leave a gap before 1.
  let upTo = 0;
  const bounds = mix.map((share) => ({ operation: share.operation, upTo: (upTo += share.percent) }));
  return (draw: number) => {
    if (!(draw >= 0 && draw < 1)) throw new Error(`a draw must be in [0, 1), got ${draw}`);
    const percent = draw * 100;
    return (bounds.find((bound) => percent < bound.upTo) ?? bounds[bounds.length - 1]).operation;
  };
}
