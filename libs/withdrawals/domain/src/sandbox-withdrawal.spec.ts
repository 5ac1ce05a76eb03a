import { sandboxWithdrawalFails } from './sandbox-withdrawal';

describe('sandbox withdrawal magic amounts', () => {
  it('fails an amount whose minor units end in 01 and sends any other', () => {
    // USDT has 6 decimals: 10.000001 USDT is 10000001 minor units.
    expect(sandboxWithdrawalFails(10_000_001n)).toBe(true);
    expect(sandboxWithdrawalFails(1n)).toBe(true);
    expect(sandboxWithdrawalFails(10_000_000n)).toBe(false);
    expect(sandboxWithdrawalFails(10_000_002n)).toBe(false);
    expect(sandboxWithdrawalFails(10_000_101n)).toBe(true);
  });
});
