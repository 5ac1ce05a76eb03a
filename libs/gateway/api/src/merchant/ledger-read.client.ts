import { Inject, Injectable } from '@nestjs/common';
import type { BalancesView, DepositAdjustmentRequest } from '@mp/contracts-ledger';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { InternalClient } from '../http/internal-client';

@Injectable()
export class LedgerReadClient {
  private readonly client: InternalClient;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings) {
    this.client = new InternalClient('ledger', settings.ledgerInternalUrl, settings.paymentsReadTimeoutMs);
  }

  getBalances(merchantId: string): Promise<BalancesView> {
    return this.client.request('GET', `/internal/merchants/${encodeURIComponent(merchantId)}/balances`);
  }

  adjustDeposit(merchantId: string, adjustment: DepositAdjustmentRequest): Promise<unknown> {
    return this.client.request('POST', `/internal/merchants/${encodeURIComponent(merchantId)}/deposit-adjustments`, adjustment);
  }
}
