import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { ApprovalDecisionRequest, BalancesView, ConversionRequest, ConversionView, DepositAdjustmentRequest, DepositAdjustmentView, LedgerEntriesPage, OperatorApprovalView } from '@mp/contracts-ledger';
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

  /** 201 when booked now, 200 when the adjustment_id was booked before (the original comes back), 202 awaiting a second operator. */
  adjustDeposit(merchantId: string, adjustment: DepositAdjustmentRequest): Promise<{ status: number; body: DepositAdjustmentView | OperatorApprovalView }> {
    return this.client.exchange('POST', `/internal/merchants/${encodeURIComponent(merchantId)}/deposit-adjustments`, adjustment);
  }

  /** 201 when booked now, 200 when the conversion_id was booked before (the original comes back), 202 awaiting a second operator. */
  convert(merchantId: string, conversion: ConversionRequest): Promise<{ status: number; body: ConversionView | OperatorApprovalView }> {
    return this.client.exchange('POST', `/internal/merchants/${encodeURIComponent(merchantId)}/conversions`, conversion);
  }

  listApprovals(query: URLSearchParams): Promise<{ data: OperatorApprovalView[] }> {
    return this.client.request('GET', `/internal/approvals${queryString(query)}`);
  }

  decideApproval(approvalId: string, decision: 'approve' | 'reject', body: ApprovalDecisionRequest): Promise<OperatorApprovalView> {
    return this.client.request('POST', `/internal/approvals/${encodeURIComponent(approvalId)}/${decision}`, body);
  }

  /** The ledger validates the query (currency, from, to, limit, cursor); the gateway passes it through. */
  listEntries(merchantId: string, query: URLSearchParams): Promise<LedgerEntriesPage> {
    return this.client.request('GET', `/internal/merchants/${encodeURIComponent(merchantId)}/entries${queryString(query)}`);
  }

  reconciliationCsv(merchantId: string, query: URLSearchParams): Promise<{ contentType: string; disposition: string | null; content: Readable }> {
    return this.client.stream(`/internal/merchants/${encodeURIComponent(merchantId)}/reconciliation.csv${queryString(query)}`);
  }
}

function queryString(query: URLSearchParams): string {
  const text = query.toString();
  return text ? `?${text}` : '';
}
