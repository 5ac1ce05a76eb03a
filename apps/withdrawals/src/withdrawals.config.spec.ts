import { ConfigError } from '@mp/shared-util-config';
import { ServiceKeyring } from '@mp/shared-service-auth';
import { loadWithdrawalsConfig } from './withdrawals.config';

/** Service-token keys: every service refuses to boot without its own. */
const SERVICE_KEYS = new ServiceKeyring();

const base = { WITHDRAWALS_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/w', KAFKA_BROKERS: '127.0.0.1:9092', ...SERVICE_KEYS.environmentOf('withdrawals') };

describe('withdrawals config', () => {
  it('ships the asset table and lets an operator replace network fees', () => {
    const config = loadWithdrawalsConfig({ ...base, WITHDRAWALS_NETWORK_FEES: 'USDT-TRC20=0, BTC=0.00004' });
    expect(config.assets.find((asset) => asset.code === 'USDT-TRC20')?.networkFeeMinor).toBe(0n);
    expect(config.assets.find((asset) => asset.code === 'BTC')?.networkFeeMinor).toBe(4_000n);
    expect(config.assets.find((asset) => asset.code === 'USDT-ERC20')?.networkFeeMinor).toBe(5_000_000n);
    expect(config.simulator).toEqual({ delayMs: 2_000, outcome: 'succeed', failAddressPattern: null });
  });

  it('refuses bad values at boot, naming each', () => {
    const attempt = () =>
      loadWithdrawalsConfig({
        ...base,
        WITHDRAWALS_NETWORK_FEES: 'DOGE=1,BTC=0.000000001',
        WITHDRAWALS_SIMULATOR_OUTCOME: 'maybe',
        WITHDRAWALS_SIMULATOR_FAIL_ADDRESS_PATTERN: '(',
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const message = (error as ConfigError).message;
      for (const name of ['DOGE', 'the fee of BTC', 'WITHDRAWALS_SIMULATOR_OUTCOME', 'WITHDRAWALS_SIMULATOR_FAIL_ADDRESS_PATTERN'])
        expect(message).toContain(name);
    }
  });
});
