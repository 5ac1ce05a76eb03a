import { WITHDRAWAL_ASSET_BALANCES } from '@mp/contracts-withdrawals';
import { DEFAULT_WITHDRAWAL_ASSETS } from './assets';

describe('the asset table', () => {
  it('has exactly the codes and balance assets the contract publishes (the gateway checks requests against them)', () => {
    expect(Object.fromEntries(DEFAULT_WITHDRAWAL_ASSETS.map((asset) => [asset.code, asset.balanceAsset]))).toEqual(WITHDRAWAL_ASSET_BALANCES);
  });
});
