import type { NetworkAnswer } from '@mp/withdrawals-domain';
import { ModeRoutingNetworkAdapter } from './mode-routing-network.adapter';
import type { NetworkAdapter, NetworkSendRequest, NetworkSendResult } from './network-adapter.port';

class NamedAdapter implements NetworkAdapter {
  readonly seen: string[] = [];
  constructor(private readonly name: string) {}
  async send(request: NetworkSendRequest): Promise<NetworkSendResult> {
    this.seen.push(`send ${request.merchantId}`);
    return { outcome: 'completed', transactionHash: this.name };
  }
  async lookup(idempotencyKey: string): Promise<NetworkAnswer> {
    this.seen.push(`lookup ${idempotencyKey}`);
    return { status: 'completed', transactionHash: this.name };
  }
}

const request = (merchantId: string): NetworkSendRequest => ({
  merchantId,
  idempotencyKey: `${merchantId}/W-1`,
  network: 'ETHEREUM',
  address: '0xabc',
  currency: 'USDT-ERC20',
  amountMinor: 10_000_000n,
});

describe('network routing by merchant mode', () => {
  it('sends and looks up a test merchant’s withdrawals on the simulator only, a live merchant’s on the live network', async () => {
    const live = new NamedAdapter('live');
    const simulator = new NamedAdapter('simulator');
    const router = new ModeRoutingNetworkAdapter(live, simulator);
    expect(await router.send(request('test_mch_0123456789abcdef01234567'))).toEqual({ outcome: 'completed', transactionHash: 'simulator' });
    expect(await router.lookup('k-test', 'test_mch_0123456789abcdef01234567')).toEqual({ status: 'completed', transactionHash: 'simulator' });
    expect(await router.send(request('mch_0123456789abcdef01234567'))).toEqual({ outcome: 'completed', transactionHash: 'live' });
    expect(await router.lookup('k-live', 'mch_0123456789abcdef01234567')).toEqual({ status: 'completed', transactionHash: 'live' });
    expect(live.seen).toEqual(['send mch_0123456789abcdef01234567', 'lookup k-live']);
    expect(simulator.seen).toEqual(['send test_mch_0123456789abcdef01234567', 'lookup k-test']);
  });
});
