import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type {
  ApprovalDecisionRequest,
  BalancesView,
  EndOfDayBalancesView,
  ConversionRequest,
  ConversionView,
  DepositAdjustmentRequest,
  DepositAdjustmentView,
  LedgerAnchorView,
  LedgerEntriesPage,
  OperatorApprovalView,
} from '@mp/contracts-ledger';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { InternalClient } from '../http/internal-client';

@Injectable()
export class LedgerReadClient {
  private readonly client: InternalClient;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings, @Optional() @Inject(SERVICE_TOKEN_ISSUER) issuer?: ServiceTokenIssuer) {
    this.client = new InternalClient('ledger', settings.ledgerInternalUrl, settings.paymentsReadTimeoutMs, authorizationFor(issuer, 'ledger'));
  }

  getBalances(merchantId: string): Promise<BalancesView> {
    return this.client.request('GET', `/internal/merchants/${encodeURIComponent(merchantId)}/balances`);
  }

  /** The balances at the start and the end of a UTC day (`date`, YYYY-MM-DD), from the postings. */
  getEndOfDayBalances(merchantId: string, date: string): Promise<EndOfDayBalancesView> {
    return this.client.request('GET', `/internal/merchants/${encodeURIComponent(merchantId)}/balances/end-of-day?${new URLSearchParams({ date }).toString()}`);
  }

  /** The operator goes in the service token (the ledger books under it). 201 when booked now, 200 when the adjustment_id was booked before (the original comes back), 202 awaiting a second operator. */
  adjustDeposit(merchantId: string, adjustment: DepositAdjustmentRequest): Promise<{ status: number; body: DepositAdjustmentView | OperatorApprovalView }> {
    return this.client.exchange(
      'POST',
      `/internal/merchants/${encodeURIComponent(merchantId)}/deposit-adjustments`,
      adjustment,
      {},
      { type: 'operator', id: adjustment.operator_id },
    );
  }

  /** 201 when booked now, 200 when the conversion_id was booked before (the original comes back), 202 awaiting a second operator. */
  convert(merchantId: string, conversion: ConversionRequest): Promise<{ status: number; body: ConversionView | OperatorApprovalView }> {
    return this.client.exchange(
      'POST',
      `/internal/merchants/${encodeURIComponent(merchantId)}/conversions`,
      conversion,
      {},
      { type: 'operator', id: conversion.operator_id },
    );
  }

  listApprovals(query: URLSearchParams): Promise<{ data: OperatorApprovalView[] }> {
    return this.client.request('GET', `/internal/approvals${queryString(query)}`);
  }

  decideApproval(approvalId: string, decision: 'approve' | 'reject', body: ApprovalDecisionRequest): Promise<OperatorApprovalView> {
    return this.client.request(
      'POST',
      `/internal/approvals/${encodeURIComponent(approvalId)}/${decision}`,
      body,
      {},
      { type: 'operator', id: body.operator_id },
    );
  }

  /** The ledger validates the query (currency, from, to, limit, cursor); the gateway passes it through. */
  listEntries(merchantId: string, query: URLSearchParams): Promise<LedgerEntriesPage> {
    return this.client.request('GET', `/internal/merchants/${encodeURIComponent(merchantId)}/entries${queryString(query)}`);
  }

  /** One UTC day of one currency, oldest first, a page at a time (the merchant's reconciliation report). */
  entriesOfDay(merchantId: string, query: { date: string; currency: string; cursor?: string }): Promise<LedgerEntriesPage> {
    return this.client.request('GET', `/internal/merchants/${encodeURIComponent(merchantId)}/entries-of-day${queryString(new URLSearchParams(query))}`);
  }

  /** The merchant's ledger anchor at the end of one UTC day in one currency (the reconciliation report's). */
  ledgerAnchor(merchantId: string, query: { date: string; currency: string }): Promise<LedgerAnchorView> {
    return this.client.request('GET', `/internal/merchants/${encodeURIComponent(merchantId)}/ledger-anchor${queryString(new URLSearchParams(query))}`);
  }

  reconciliationCsv(merchantId: string, query: URLSearchParams): Promise<{ contentType: string; disposition: string | null; content: Readable }> {
    return this.client.stream(`/internal/merchants/${encodeURIComponent(merchantId)}/reconciliation.csv${queryString(query)}`);
  }
}

function queryString(query: URLSearchParams): string {
  const text = query.toString();
  return text ? `?${text}` : '';
}
