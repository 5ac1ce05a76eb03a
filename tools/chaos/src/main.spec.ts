import { ConfigError } from '@mp/shared-util-config';
import { chaosOptions } from './main';

describe('chaosOptions', () => {
  it('gives the quick mode its lean settings and the full mode its own', () => {
    expect(chaosOptions(['--quick'])).toMatchObject({ mode: 'quick', rate: 15, merchants: 2, replicas: ['payments-2', 'ledger-2'] });
    expect(chaosOptions([])).toMatchObject({ mode: 'full', rate: 20, merchants: 4 });
    expect(chaosOptions(['--rate', '25', '--merchants', '6'])).toMatchObject({ rate: 25, merchants: 6 });
  });

  it('refuses a bad flag with a clear error before anything starts', () => {
    expect(() => chaosOptions(['--rate', 'fast'])).toThrow(ConfigError);
    expect(() => chaosOptions(['--merchants', '0'])).toThrow(/--merchants must be a whole number from 1 to 200/);
    expect(() => chaosOptions(['--quik'])).toThrow(ConfigError);
  });
});
