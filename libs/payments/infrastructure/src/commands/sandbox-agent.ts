import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { SANDBOX_AGENT_ID, SANDBOX_DECLINE_REASON, SANDBOX_TIMEOUT_ENDING, sandboxOutcomeFor, type PaymentOrderCommand } from '@mp/payments-domain';
import { TEST_MERCHANT_ID_PREFIX } from '@mp/shared-util-validation';
import { DataSource, type EntityManager } from 'typeorm';
import { LEDGER_HOLDS, type LedgerHolds } from '../ledger/ledger-holds.port';
import { CLOCK, type Clock } from '../payments-settings';
import { receiptRefOf, storeReceipt } from '../receipts/payout-receipts.store';
import { handlePaymentOrderCommand } from './payment-order.stream';

const BATCH_SIZE = 100;

/** The payout receipt the simulated agent attaches: a minimal valid PDF, so downloads work as for a real one. */
const SANDBOX_RECEIPT = Buffer.from('%PDF-1.4\n% sandbox payout receipt: no money moved\n%%EOF\n', 'latin1');

/** Matches the partial index payment_orders_sandbox_pending (SandboxOrders1700000032000) word for word. */
export const SANDBOX_PENDING_SQL = `status = 'PENDING' AND merchant_id LIKE '${TEST_MERCHANT_ID_PREFIX.replace('_', '\\_')}%'`;

interface PendingSandboxOrder {
  merchant_id: string;
  order_id: string;
  direction: 'incoming' | 'outgoing';
  amount_minor: string;
}

/**
 * The sandbox's simulated agent: settles the pending orders of test-mode merchants (ids
 * `test_…`) by their magic amounts (sandboxOutcomeFor), through the same command core and
 * decider as a live agent, so every outcome has its normal events, ledger postings and
 * callbacks. The expiry sweep runs it on each of its passes (PAYMENTS_EXPIRY_SWEEP_INTERVAL_MS).
 * A timeout amount is left alone: the expiry sweep ends it at its expires_at, as it would a
 * live order nobody took. Several replicas may act at once: the stream version lets one win,
 * and the loser's next pass finds the order finished. An order's assignment and outcome commit
 * together.
 */
@Injectable()
export class SandboxAgent {
  private readonly logger = new Logger(SandboxAgent.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Settles what is pending now; returns how many orders it finished. Run by the expiry sweep's pass. */
  async settleOnce(): Promise<number> {
    const pending: PendingSandboxOrder[] = await this.dataSource.query(
      `SELECT merchant_id, order_id, direction, amount_minor::text AS amount_minor FROM payment_orders
        WHERE ${SANDBOX_PENDING_SQL} AND amount_minor % 100 <> $1 ORDER BY list_position LIMIT $2`,
      [SANDBOX_TIMEOUT_ENDING.toString(), BATCH_SIZE],
    );
    let settled = 0;
    for (const order of pending) {
      try {
        await this.dataSource.transaction((manager) => this.settleOrder(manager, order));
        settled += 1;
      } catch (error) {
        this.logger.warn(`sandbox agent could not settle ${order.merchant_id}/${order.order_id}: ${String(error)}`);
      }
    }
    return settled;
  }

  private async settleOrder(manager: EntityManager, order: PendingSandboxOrder): Promise<void> {
    const now = this.clock.now();
    const outcome = sandboxOutcomeFor(BigInt(order.amount_minor));
    const run = (command: PaymentOrderCommand) =>
      handlePaymentOrderCommand(this.ledger, { manager }, order.merchant_id, order.order_id, command, {
        id: randomUUID(),
        correlationId: `sandbox-${order.order_id}`,
      });
    await run({ type: 'AssignAgent', data: { agentId: SANDBOX_AGENT_ID }, metadata: { now } });
    if (outcome === 'decline') {
      await run({ type: 'DeclinePaymentOrder', data: { agentId: SANDBOX_AGENT_ID, reason: SANDBOX_DECLINE_REASON }, metadata: { now } });
    } else if (order.direction === 'incoming') {
      await run({ type: 'ConfirmIncomingPayment', data: { agentId: SANDBOX_AGENT_ID }, metadata: { now } });
    } else {
      const receipt = await storeReceipt(manager, {
        merchantId: order.merchant_id,
        orderId: order.order_id,
        agentId: SANDBOX_AGENT_ID,
        fileName: 'sandbox-receipt.pdf',
        content: SANDBOX_RECEIPT,
      });
      await run({ type: 'CompleteOutgoingPayment', data: { agentId: SANDBOX_AGENT_ID, receipt: receiptRefOf(receipt) }, metadata: { now } });
    }
  }
}
