import { pageFilterOf } from '@mp/shared-data-access-postgres';
import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  agentViewOf,
  AgentOrderListQueryDto,
  MerchantOrderListQueryDto,
  payerPageTokenHash,
  payoutHoldId,
  type AgentOrderListPage,
  type AgentOrderView,
  type BackofficeOrderView,
  type OrderListFilterFieldsDto,
  type OrderListPage,
  type PayerPageData,
  type PaymentOrderView,
  type ReceiptView,
  type ReceiptsView,
} from '@mp/contracts-payments';
import { assertNoHoldPlacementInProgress } from '@mp/ledger-client';
import { agentOrderNotFound, paymentOrderDecider, SANDBOX_AGENT_ID, SANDBOX_AGENT_PROFILE, toPaymentOrderStreamId } from '@mp/payments-domain';
import { aggregateStreamAsOf, stateAsOfView, type StateAsOfView } from '@mp/shared-command-handling';
import { AgentIdParam, AsOfQueryDto, MerchantIdParam, OrderIdParam, OrderMerchantIdParam, PayerPageTokenParam, RequestPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource } from 'typeorm';
import { loadPaymentOrder, paymentOrderEvents } from '../commands/payment-order.stream';
import { PayerPageLinks } from '../payer-pages/payer-page-links';
import {
  findOrder,
  findOrderByPayerPageTokenHash,
  orderToRow,
  receiptViewsOf,
  rowToBackofficeView,
  rowToView,
  type PayerPageUrlOf,
  type PaymentOrderRow,
} from '../persistence/payment-order.projection';
import { findAgent } from '../reference-data/payment-agents.store';
import { listOrders, type OrderListFilter } from './order-list.query';

const queryPipe = new RequestPipe();

/**
 * Reads for the gateway, served from the projection. Internal only: this port is not exposed
 * to merchants, and the gateway has already authenticated the caller and checked the filters;
 * ids and filters are checked again here, so nothing malformed ever reaches the database.
 */
@Controller('internal')
export class InternalOrdersController {
  private readonly payerPageUrlOf: PayerPageUrlOf;

  constructor(
    private readonly dataSource: DataSource,
    payerPageLinks: PayerPageLinks,
  ) {
    this.payerPageUrlOf = (merchantId, orderId, storedTokenHash) => payerPageLinks.urlFor(merchantId, orderId, storedTokenHash);
  }

  @Get('merchants/:merchantId/orders/:orderId')
  async getOrder(@Param('merchantId', OrderMerchantIdParam) merchantId: string, @Param('orderId', OrderIdParam) orderId: string): Promise<PaymentOrderView> {
    const row = await findOrder(this.dataSource.manager, merchantId, orderId);
    if (row) return rowToView(row, this.payerPageUrlOf);
    // The ledger's orphan-hold sweep asks this; a payout whose create placed its hold and has
    // not committed yet is no orphan (lockHoldPlacement).
    await assertNoHoldPlacementInProgress(this.dataSource.manager, payoutHoldId(merchantId, orderId), 'payout');
    throw new DomainError('ORDER_NOT_FOUND', `No order ${orderId}`);
  }

  @Get('merchants/:merchantId/orders')
  async listMerchantOrders(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Query(queryPipe) query: MerchantOrderListQueryDto,
  ): Promise<OrderListPage> {
    const page = await listOrders(this.dataSource.manager, { ...toListFilter(query), merchantId, direction: query.direction });
    return { data: page.rows.map((row) => rowToView(row, this.payerPageUrlOf)), has_more: page.hasMore, next_cursor: page.nextCursor };
  }

  /** Endpoint 7: receipts the agent attached to a payout; an incoming order number is not found. */
  @Get('merchants/:merchantId/orders/:orderId/receipts')
  async getReceipts(@Param('merchantId', OrderMerchantIdParam) merchantId: string, @Param('orderId', OrderIdParam) orderId: string): Promise<ReceiptsView> {
    const row = await this.requireOrder(merchantId, orderId);
    if (row.direction !== 'outgoing') throw new DomainError('ORDER_NOT_FOUND', `No outgoing order ${orderId}`);
    return { data: await this.receiptsOf(row) };
  }

  /** Operators look at any order (the gateway shows agents only its agent view of it). */
  @Get('orders/:merchantId/:orderId')
  async getOrderForBackoffice(
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
  ): Promise<BackofficeOrderView> {
    const row = await this.requireOrder(merchantId, orderId);
    return rowToBackofficeView(row, this.payerPageUrlOf, await this.receiptsOf(row));
  }

  /**
   * Operators: the order as it stood at `at`, folded from its stream (docs/operations/as-of-reads.md).
   * The dispute overlay and the receipts are not in the order's events, so the state is the
   * order's own (a disputed order shows its own status).
   */
  @Get('orders/:merchantId/:orderId/as-of')
  async getOrderAsOf(
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Query(queryPipe) query: AsOfQueryDto,
  ): Promise<StateAsOfView<BackofficeOrderView>> {
    const at = new Date(query.at);
    const read = await aggregateStreamAsOf(this.dataSource.manager, paymentOrderDecider, paymentOrderEvents, toPaymentOrderStreamId(merchantId, orderId), at);
    if (read.events.length === 0) throw new DomainError('ORDER_NOT_FOUND', `No order ${orderId}`);
    return stateAsOfView(at, read, (order) => (order.status === 'NotCreated' ? null : rowToBackofficeView(orderToRow(order), this.payerPageUrlOf, [])));
  }

  /** An agent's own order. Any other, existing or not, is the same not-found: agents cannot probe order ids. */
  @Get('agents/:agentId/orders/:merchantId/:orderId')
  async getAgentOrder(
    @Param('agentId', AgentIdParam) agentId: string,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
  ): Promise<AgentOrderView> {
    const row = await findOrder(this.dataSource.manager, merchantId, orderId);
    if (!row || row.agent_id !== agentId) throw agentOrderNotFound();
    return agentViewOf(rowToBackofficeView(row, this.payerPageUrlOf, await this.receiptsOf(row)));
  }

  /** `scope=assigned` (default): the agent's orders; `scope=available`: unassigned payouts it serves. */
  @Get('agents/:agentId/orders')
  async listAgentOrders(@Param('agentId', AgentIdParam) agentId: string, @Query(queryPipe) query: AgentOrderListQueryDto): Promise<AgentOrderListPage> {
    const filter: OrderListFilter = toListFilter(query);
    if (query.scope === 'available') {
      const agent = await findAgent(this.dataSource.manager, agentId);
      if (!agent || !agent.active) return { data: [], has_more: false, next_cursor: null };
      filter.availableFor = agent.serves;
    } else filter.agentId = agentId;
    const page = await listOrders(this.dataSource.manager, filter);
    return {
      data: page.rows.map((row) => agentViewOf(rowToBackofficeView(row, this.payerPageUrlOf, []))),
      has_more: page.hasMore,
      next_cursor: page.nextCursor,
    };
  }

  @Get('payer-pages/:token')
  async getPayerPage(@Param('token', PayerPageTokenParam) token: string): Promise<PayerPageData> {
    const row = await findOrderByPayerPageTokenHash(this.dataSource.manager, payerPageTokenHash(token));
    if (!row) throw new DomainError('NOT_FOUND', 'No such payment page');
    const page = { merchant_id: row.merchant_id, order: rowToView(row, this.payerPageUrlOf) };
    if (row.agent_id === SANDBOX_AGENT_ID) return { ...page, agent: SANDBOX_AGENT_PROFILE };
    const agent = row.agent_id ? await findAgent(this.dataSource.manager, row.agent_id) : null;
    return { ...page, agent: agent ? { display_name: agent.display_name, payment_details: agent.payment_details } : null };
  }

  private async requireOrder(merchantId: string, orderId: string): Promise<PaymentOrderRow> {
    const row = await findOrder(this.dataSource.manager, merchantId, orderId);
    if (!row) throw new DomainError('ORDER_NOT_FOUND', `No order ${orderId}`);
    return row;
  }

  /**
   * Receipts attached by a completed payout, from the order's own events. Only a payout's
   * completion carries one (the decider refuses a receipt on a pay-in), so a pay-in's stream is
   * not read: the agent's view after confirming a pay-in costs no stream read.
   */
  private async receiptsOf(row: PaymentOrderRow): Promise<ReceiptView[]> {
    if (row.direction !== 'outgoing') return [];
    const { state } = await loadPaymentOrder(this.dataSource.manager, row.merchant_id, row.order_id);
    return state.status === 'NotCreated' ? [] : receiptViewsOf(state);
  }
}

function toListFilter(query: OrderListFilterFieldsDto & { limit?: string }): OrderListFilter {
  return { status: query.status, ...pageFilterOf(query) };
}
