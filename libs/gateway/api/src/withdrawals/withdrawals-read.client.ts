import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { StateAsOfView } from '@mp/shared-command-handling';
import type {
  BackofficeWithdrawalView,
  StuckWithdrawalsView,
  WithdrawalAssetView,
  WithdrawalListPage,
  WithdrawalStatusView,
  WithdrawalView,
} from '@mp/contracts-withdrawals';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { InternalClient } from '../http/internal-client';
import { toQueryString, type ListFilters } from '../payments/list-filters.request';

const segment = encodeURIComponent;
/** The asset table is configuration of the withdrawals service: read it rarely. */
const ASSETS_CACHE_MS = 30_000;

/** Reads go straight to the withdrawals service's internal API, never through Kafka. */
@Injectable()
export class WithdrawalsReadClient {
  private readonly client: InternalClient;
  private assets: { at: number; data: WithdrawalAssetView[] } | null = null;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings, @Optional() @Inject(SERVICE_TOKEN_ISSUER) issuer?: ServiceTokenIssuer) {
    this.client = new InternalClient('withdrawals', settings.withdrawalsInternalUrl, settings.paymentsReadTimeoutMs, authorizationFor(issuer, 'withdrawals'));
  }

  getWithdrawal(merchantId: string, orderId: string): Promise<WithdrawalView> {
    return this.client.request('GET', `/internal/merchants/${segment(merchantId)}/withdrawals/${segment(orderId)}`);
  }

  /** The operators' view: the withdrawal plus send progress and reconciliation evidence. */
  getForOperator(merchantId: string, orderId: string): Promise<BackofficeWithdrawalView> {
    return this.client.request('GET', `/internal/withdrawals/${segment(merchantId)}/${segment(orderId)}`);
  }

  /** Operators: the withdrawal as it stood at `at` (an RFC 3339 instant), from its stream. */
  getAsOf(merchantId: string, orderId: string, at: string): Promise<StateAsOfView<WithdrawalView>> {
    return this.client.request('GET', `/internal/withdrawals/${segment(merchantId)}/${segment(orderId)}/as-of?${new URLSearchParams({ at }).toString()}`);
  }

  listWithdrawals(merchantId: string, filters: Omit<ListFilters, 'status'> & { status?: WithdrawalStatusView }): Promise<WithdrawalListPage> {
    return this.client.request('GET', `/internal/merchants/${segment(merchantId)}/withdrawals${toQueryString(filters)}`);
  }

  async getAssets(): Promise<WithdrawalAssetView[]> {
    if (this.assets && Date.now() - this.assets.at < ASSETS_CACHE_MS) return this.assets.data;
    const { data } = await this.client.request<{ data: WithdrawalAssetView[] }>('GET', '/internal/withdrawal-assets');
    this.assets = { at: Date.now(), data };
    return data;
  }

  listStuck(olderThanSeconds: number): Promise<StuckWithdrawalsView> {
    return this.client.request('GET', `/internal/withdrawals/stuck?older_than_seconds=${olderThanSeconds}`);
  }
}
