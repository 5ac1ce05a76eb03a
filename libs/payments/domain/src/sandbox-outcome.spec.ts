import { sandboxOutcomeFor } from './sandbox-outcome';

describe('sandbox magic amounts', () => {
  it.each([
    [150000n, 'succeed'],
    [100n, 'succeed'],
    [150099n, 'succeed'],
    [150050n, 'succeed'],
    [150001n, 'decline'],
    [1n, 'decline'],
    [150002n, 'timeout'],
    [2n, 'timeout'],
    [150003n, 'succeed'],
    [10_000_000_000_000_000_000_001n, 'decline'],
  ] as const)('%s minor units → %s', (amountMinor, outcome) => {
    expect(sandboxOutcomeFor(amountMinor)).toBe(outcome);
  });
});
