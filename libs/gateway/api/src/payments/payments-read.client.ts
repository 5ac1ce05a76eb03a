import { Inject, Injectable } from '@nestjs/common';
import type { AgentOrderView, PaymentOrderView, ReceiptView } from '@mp/contracts-payments';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { InternalClient } from '../http/internal-client';
import type { PayerPageView } from '../payer-page/payer-page.view';
import { toQueryString, type ListFilters } from './list-filters.request';

export interface ListPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** A method entry as the payments service stores it (minor units as strings). */
export interface StoredMethodEntry {
  method: string;
  direction: 'incoming' | 'outgoing';
  country: string;
  currency: string;
  fee_rate_basis_points: number;
  fee_fixed_minor: string;
  min_amount_minor: string;
  max_amount_minor: string;
  expiry_minutes: number;
}

/** Who saw which payout's full recipient account, and when. */
export interface AccountNumberRevealView {
  reveal_id: string;
  agent_id: string;
  merchant_id: string;
  order_id: string;
  revealed_at: string;
}

const segment = encodeURIComponent;

/** Reads go straight to the owning service's internal API, never through Kafka. */
@Injectable()
export class PaymentsReadClient {
  private readonly client: InternalClient;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings) {
    this.client = new InternalClient('payments', settings.paymentsInternalUrl, settings.paymentsReadTimeoutMs);
  }

  getOrder(merchantId: string, orderId: string): Promise<PaymentOrderView> {
    return this.client.request('GET', `/internal/merchants/${segment(merchantId)}/orders/${segment(orderId)}`);
  }

  listOrders(merchantId: string, direction: 'incoming' | 'outgoing', filters: ListFilters): Promise<ListPage<PaymentOrderView>> {
    return this.client.request('GET', `/internal/merchants/${segment(merchantId)}/orders${toQueryString({ ...filters, direction })}`);
  }

  getReceipts(merchantId: string, orderId: string): Promise<{ data: ReceiptView[] }> {
    return this.client.request('GET', `/internal/merchants/${segment(merchantId)}/orders/${segment(orderId)}/receipts`);
  }

  downloadReceipt(receiptId: string): Promise<{ contentType: string; disposition: string | null; content: Buffer }> {
    return this.client.download(`/internal/receipts/${segment(receiptId)}/content`);
  }

  getMethods(merchantId: string): Promise<{ data: StoredMethodEntry[] }> {
    return this.client.request('GET', `/internal/merchants/${segment(merchantId)}/methods`);
  }

  /** Stores a payout's recipient account encrypted; the payout command carries only the reference. */
  storeRecipientAccount(merchantId: string, accountNumber: string): Promise<{ reference: string; last4: string }> {
    return this.client.request('POST', `/internal/merchants/${segment(merchantId)}/payout-recipient-accounts`, { account_number: accountNumber });
  }

  /** The full account number of a payout assigned to this agent; payments records the reveal. */
  revealAccountNumber(agentId: string, merchantId: string, orderId: string): Promise<{ account_number: string; revealed_at: string }> {
    return this.client.request('POST', `/internal/agents/${segment(agentId)}/orders/${segment(merchantId)}/${segment(orderId)}/account-number-reveals`);
  }

  listAccountNumberReveals(filters: Record<string, string>): Promise<{ data: AccountNumberRevealView[] }> {
    return this.client.request('GET', `/internal/account-number-reveals?${new URLSearchParams(filters).toString()}`);
  }

  getPayerPage(token: string): Promise<PayerPageView> {
    return this.client.request('GET', `/internal/payer-pages/${segment(token)}`);
  }

  /** Back office: any order with its merchant, agent and receipts. */
  getOrderForBackoffice(merchantId: string, orderId: string): Promise<AgentOrderView> {
    return this.client.request('GET', `/internal/orders/${segment(merchantId)}/${segment(orderId)}`);
  }

  /** Back office: the agent's own order; any other, existing or not, is one identical 404. */
  getAgentOrder(agentId: string, merchantId: string, orderId: string): Promise<AgentOrderView> {
    return this.client.request('GET', `/internal/agents/${segment(agentId)}/orders/${segment(merchantId)}/${segment(orderId)}`);
  }

  listAgentOrders(agentId: string, scope: 'assigned' | 'available', filters: ListFilters): Promise<ListPage<AgentOrderView>> {
    return this.client.request('GET', `/internal/agents/${segment(agentId)}/orders${toQueryString({ ...filters, scope })}`);
  }

  putMethods(merchantId: string, entries: StoredMethodEntry[]): Promise<{ data: StoredMethodEntry[] }> {
    return this.client.request('PUT', `/internal/merchants/${segment(merchantId)}/methods`, { entries });
  }

  putAgent(agentId: string, agent: { display_name: string; payment_details: string; serves: Array<{ method: string; country: string; currency: string }>; active: boolean }) {
    return this.client.request('PUT', `/internal/agents/${segment(agentId)}`, agent);
  }

  uploadReceipt(agentId: string, merchantId: string, orderId: string, fileName: string, content: Buffer): Promise<{ receipt_id: string }> {
    return this.client.request('POST', `/internal/agents/${segment(agentId)}/orders/${segment(merchantId)}/${segment(orderId)}/receipts`, content, {
      'content-type': 'application/octet-stream',
      'x-file-name': fileName.replace(/[^\x20-\x7e]/g, '_'),
    });
  }
}
