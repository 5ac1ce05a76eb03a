import { Inject, Injectable } from '@nestjs/common';
import { isTestMerchantId } from '@mp/shared-util-validation';
import type { NetworkAnswer } from '@mp/withdrawals-domain';
import { type NetworkAdapter, type NetworkSendRequest, type NetworkSendResult } from './network-adapter.port';
import { SimulatedNetworkAdapter } from './simulated-network.adapter';

/** The adapter live merchants' withdrawals go to: the simulator until a real network adapter is provided here. */
export const LIVE_NETWORK_ADAPTER = Symbol('LIVE_NETWORK_ADAPTER');

/**
 * Routes by the merchant's mode: a test-mode merchant's (`test_…`, docs/api/sandbox.md)
 * withdrawals always go to the network simulator, whatever network live withdrawals use, so
 * the sandbox can never move real funds; a live merchant's go to the live adapter.
 */
@Injectable()
export class ModeRoutingNetworkAdapter implements NetworkAdapter {
  constructor(
    @Inject(LIVE_NETWORK_ADAPTER) private readonly live: NetworkAdapter,
    @Inject(SimulatedNetworkAdapter) private readonly simulator: NetworkAdapter,
  ) {}

  send(request: NetworkSendRequest): Promise<NetworkSendResult> {
    return this.adapterFor(request.merchantId).send(request);
  }

  lookup(idempotencyKey: string, merchantId: string): Promise<NetworkAnswer> {
    return this.adapterFor(merchantId).lookup(idempotencyKey, merchantId);
  }

  private adapterFor(merchantId: string): NetworkAdapter {
    return isTestMerchantId(merchantId) ? this.simulator : this.live;
  }
}
