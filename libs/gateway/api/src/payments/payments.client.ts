import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import type { Readable } from 'node:stream';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { StateAsOfView } from '@mp/shared-command-handling';
import {
  PAYMENTS_INTERNAL_PATHS,
  type AccountNumberRevealView,
  type RevealedAccountNumber,
  type StoreRecipientAccountRequest,
  type StoredRecipientAccount,
  type AgentOrderListPage,
  type AgentProfileList,
  type AgentProfileView,
  type AgentOrderView,
  type BackofficeOrderView,
  type PaymentOrderView,
  type MethodCatalogView,
  type OrderListPage,
  type PayerPageData,
  type PutAgentRequest,
  type ReceiptsView,
  type StoredMethodEntry,
  type StoredReceiptView,
} from '@mp/contracts-payments';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { InternalClient } from '../http/internal-client';
import type { PayerPageView } from '../payer-page/payer-page.view';
import { toQueryString, type ListFilters } from './list-filters.request';

const paths = PAYMENTS_INTERNAL_PATHS;

/**
 * The payments service's internal HTTP API: its reads, and the writes that are not commands
 * (recipient accounts, account-number reveals, method catalogues, agent profiles, receipts).
 * Commands go through Kafka instead (ServiceCommandBus).
 */
@Injectable()
export class PaymentsClient {
  private readonly client: InternalClient;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings, @Optional() @Inject(SERVICE_TOKEN_ISSUER) issuer?: ServiceTokenIssuer) {
    this.client = new InternalClient(
      'payments',
      settings.paymentsInternalUrl,
      settings.paymentsReadTimeoutMs,
      authorizationFor(issuer, 'payments'),
      withoutPayerPageToken,
    );
  }

  getOrder(merchantId: string, orderId: string): Promise<PaymentOrderView> {
    return this.client.request('GET', paths.merchantOrder(merchantId, orderId));
  }

  listOrders(merchantId: string, direction: 'incoming' | 'outgoing', filters: ListFilters): Promise<OrderListPage> {
    return this.client.request('GET', `${paths.merchantOrders(merchantId)}${toQueryString({ ...filters, direction })}`);
  }

  getReceipts(merchantId: string, orderId: string): Promise<ReceiptsView> {
    return this.client.request('GET', paths.merchantOrderReceipts(merchantId, orderId));
  }

  downloadReceipt(receiptId: string): Promise<{ contentType: string; disposition: string | null; content: Buffer }> {
    return this.client.download(paths.receiptContent(receiptId));
  }

  getMethods(merchantId: string): Promise<MethodCatalogView> {
    return this.client.request('GET', paths.merchantMethods(merchantId));
  }

  /** Stores a payout's recipient account encrypted; the payout command carries only the reference. */
  storeRecipientAccount(merchantId: string, accountNumber: string): Promise<StoredRecipientAccount> {
    return this.client.request('POST', paths.payoutRecipientAccounts(merchantId), { account_number: accountNumber } satisfies StoreRecipientAccountRequest);
  }

  /** The full account number of a payout assigned to this agent; payments records the reveal. */
  revealAccountNumber(agentId: string, merchantId: string, orderId: string): Promise<RevealedAccountNumber> {
    return this.client.request('POST', paths.accountNumberReveals(agentId, merchantId, orderId), undefined, {}, { type: 'agent', id: agentId });
  }

  listAccountNumberReveals(filters: Record<string, string>): Promise<{ data: AccountNumberRevealView[] }> {
    return this.client.request('GET', `${paths.accountNumberRevealLog()}?${new URLSearchParams(filters).toString()}`);
  }

  getPayerPage(token: string): Promise<PayerPageView & PayerPageData> {
    return this.client.request('GET', paths.payerPage(token));
  }

  /** Back office: any order with its merchant, agent and receipts. */
  getOrderForBackoffice(merchantId: string, orderId: string): Promise<BackofficeOrderView> {
    return this.client.request('GET', paths.backofficeOrder(merchantId, orderId));
  }

  /** Back office: the order as it stood at `at` (an RFC 3339 instant), from its stream. */
  getOrderAsOf(merchantId: string, orderId: string, at: string): Promise<StateAsOfView<BackofficeOrderView>> {
    return this.client.request('GET', `${paths.backofficeOrderAsOf(merchantId, orderId)}?${new URLSearchParams({ at }).toString()}`);
  }

  /** Back office: the agent's own order; any other, existing or not, is one identical 404. */
  getAgentOrder(agentId: string, merchantId: string, orderId: string): Promise<AgentOrderView> {
    return this.client.request('GET', paths.agentOrder(agentId, merchantId, orderId));
  }

  listAgentOrders(agentId: string, scope: 'assigned' | 'available', filters: ListFilters): Promise<AgentOrderListPage> {
    return this.client.request('GET', `${paths.agentOrders(agentId)}${toQueryString({ ...filters, scope })}`);
  }

  putMethods(merchantId: string, entries: StoredMethodEntry[]): Promise<MethodCatalogView> {
    return this.client.request('PUT', paths.merchantMethods(merchantId), { entries });
  }

  listAgents(filters: Record<string, string | undefined>): Promise<AgentProfileList> {
    return this.client.request('GET', `${paths.agents}${toQueryString(filters)}`);
  }

  putAgent(agentId: string, agent: PutAgentRequest): Promise<AgentProfileView> {
    return this.client.request('PUT', paths.agent(agentId), agent);
  }

  uploadReceipt(agentId: string, merchantId: string, orderId: string, fileName: string, content: Buffer | Readable): Promise<StoredReceiptView> {
    return this.client.request(
      'POST',
      paths.agentReceiptUpload(agentId, merchantId, orderId),
      content,
      {
        'content-type': 'application/octet-stream',
        'x-file-name': fileName.replace(/[^\x20-\x7e]/g, '_'),
      },
      { type: 'agent', id: agentId },
    );
  }
}

/** The payer-page token is the payer's only credential: a log line shows that a page was read, never which. */
function withoutPayerPageToken(path: string): string {
  return path.replace(/\/payer-pages\/[^/?]+/, '/payer-pages/[token]');
}
