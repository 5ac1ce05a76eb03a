import { ConfigError } from '@mp/shared-util-config';
import type { InstanceName } from '@mp/shared-testing';
import { CallbackSink } from './callback-sink';
import { chaosFaults, chaosOptions } from './main';
import { ProxiedDependencies } from './proxy-faults';

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

describe('chaosFaults', () => {
  let net: ProxiedDependencies;
  let sink: CallbackSink;
  const instances: InstanceName[] = ['gateway', 'payments', 'ledger', 'payments-2'];

  beforeAll(async () => {
    [net, sink] = await Promise.all([ProxiedDependencies.start(), CallbackSink.start()]);
  });

  afterAll(() => Promise.all([net.close(), sink.stop()]));

  it('adds only the cheap network faults to a quick run: the proxy drops, the sink failing then gone', () => {
    expect(chaosFaults('quick', instances, net, sink).map(({ kind }) => kind)).toEqual([
      'sigkill',
      'sigkill',
      'kafka-restart',
      'proxy-drop',
      'proxy-drop',
      'callback-sink-failing',
      'callback-sink-gone',
    ]);
  });

  it('injects every fault in a full run', () => {
    const kinds = chaosFaults('full', instances, net, sink).map(({ kind }) => kind);
    expect(new Set(kinds)).toEqual(
      new Set([
        'sigkill',
        'kafka-restart',
        'postgres-restart',
        'postgres-connection-drop',
        'proxy-latency',
        'proxy-drop',
        'proxy-refuse',
        'proxy-black-hole',
        'callback-sink-slow',
        'callback-sink-failing',
        'callback-sink-gone',
      ]),
    );
    expect(kinds.filter((kind) => kind === 'sigkill')).toHaveLength(instances.length);
  });
});
