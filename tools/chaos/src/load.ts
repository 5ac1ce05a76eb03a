/**
 * The chaos run's mixed load: every flow of the platform at a modest rate, through the real APIs
 * (the merchant SDK, the back office, the payer page), recorded request by request (requests.ts).
 *
 * Pools carry objects from one flow step to the next: a pay-in answered 201 can be resent
 * (exact duplicate: the same order) or resent with another amount (mismatched: refused), its
 * payer can ask for the details (the agent is assigned), the agent confirms or declines it, a
 * declined one gets a dispute that an operator reviews; a payout is taken, gets a receipt and
 * is completed. A step whose pool is empty sends a new pay-in instead.
 */
import { randomBytes } from 'node:crypto';
import { MerchantClient } from '@mp/merchant-sdk';
import { createOperator, registerAgent, type BackofficeClient, type RegisteredAgent, type SystemUnderTest } from '@mp/shared-testing';
import type { CallbackSink } from './callback-sink';
import type { Operation } from './outcomes';
import { backofficeRequest, merchantRequest, payerAsksForDetails, type OutcomeLog, type RunMerchant } from './requests';

/** A valid ERC-20 address (EIP-55 checksummed); the withdrawals simulator sends to it. */
const ERC20_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const PAYOUT_ACCOUNT = '40817810099910004312';
/** The default method catalog takes pay-ins from 100.00 to 500,000.00 RUB. */
const FUNDING_RUB = 500_000;
const PAYOUT_RUB = 1_000;
const WITHDRAWAL_USDT = 20;
const CONVERSION_RUB = 2_000;
/** A dispute needs the disputes service to know the order's agent and outcome (its projection of payments' events). */
const DISPUTE_AFTER_DECLINE_MS = 3_000;

/** Relative weights of the operations; a flow step with an empty pool becomes a new pay-in. */
export const LOAD_MIX: ReadonlyArray<readonly [Operation, number]> = [
  ['pay-in', 28],
  ['pay-in-exact-duplicate', 4],
  ['pay-in-mismatched-duplicate', 3],
  ['payer-details', 10],
  ['agent-confirm', 7],
  ['agent-decline', 4],
  ['cancel', 4],
  ['payout', 6],
  ['payout-take', 5],
  ['dispute-open', 3],
  ['dispute-review', 3],
  ['withdrawal', 4],
  ['conversion', 2],
  ['status', 17],
];

/** A merchant of the run, with its callback URL on the run's sink. */
interface LoadMerchant extends RunMerchant {
  callbackUrl: string;
}

interface PayIn {
  merchant: LoadMerchant;
  orderId: string;
  body: Record<string, unknown>;
  redirectUrl: string;
}

export class MixedLoad {
  private readonly tag = randomBytes(3).toString('hex');
  private counter = 0;
  readonly payIns: PayIn[] = [];
  /** Pay-ins answered 201 whose payer has not asked for the details yet (cancellable, assignable). */
  private readonly fresh: PayIn[] = [];
  private readonly assigned: PayIn[] = [];
  private readonly declined: Array<PayIn & { atMs: number }> = [];
  private readonly openDisputes: Array<{ merchant: RunMerchant; disputeId: string; orderId: string; atMs: number }> = [];
  private readonly payouts: Array<{ merchant: RunMerchant; orderId: string }> = [];
  readonly withdrawals: Array<{ merchant: RunMerchant; orderId: string }> = [];

  private constructor(
    private readonly log: OutcomeLog,
    readonly merchants: LoadMerchant[],
    private readonly operator: BackofficeClient,
    private readonly agent: RegisteredAgent,
  ) {}

  /**
   * An operator, an agent serving RUB bank cards, `merchantCount` merchants whose callbacks come
   * to the run's sink (its URL as default_callback_url and every order's callback_url), each funded with a confirmed 500,000.00 RUB pay-in and part of it
   * converted to USDT for withdrawals. Every request is recorded like the load's.
   */
  static async prepare(system: SystemUnderTest, log: OutcomeLog, merchantCount: number, sink: CallbackSink): Promise<MixedLoad> {
    const operator = await createOperator(system, 'Chaos operator');
    const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    const merchants: LoadMerchant[] = [];
    for (let index = 0; index < merchantCount; index += 1) {
      // The merchant's id names its path on the sink, so the merchant is created first and its default URL set after.
      const created = await operator.request('POST', '/backoffice/v1/merchants', { name: `Chaos shop ${index + 1}` });
      if (created.status !== 201) throw new Error(`creating a merchant failed: ${created.status} ${created.text}`);
      const merchantId = created.body.merchant_id as string;
      const apiSecret = created.body.api_secret as string;
      const sdk = new MerchantClient({ baseUrl: system.gatewayUrl, merchantId, apiSecret, retry: false });
      // The gone fault's heal re-enables endpoints with this client: retries there are welcome.
      const client = new MerchantClient({ baseUrl: system.gatewayUrl, merchantId, apiSecret });
      const callbackUrl = sink.register({ merchantId, webhookSecrets: [created.body.webhook_secret as string], client });
      await client.merchant.update({ default_callback_url: callbackUrl });
      merchants.push({ merchantId, sdk, callbackUrl });
    }
    const load = new MixedLoad(log, merchants, operator, agent);
    await Promise.all(merchants.map((merchant) => load.fund(merchant)));
    return load;
  }

  private async fund(merchant: LoadMerchant): Promise<void> {
    const payIn = await this.createPayIn(merchant, FUNDING_RUB);
    if (!payIn) throw new Error(`funding ${merchant.merchantId}: the pay-in was not created`);
    const details = await payerAsksForDetails(this.log, merchant.merchantId, payIn.orderId, payIn.redirectUrl);
    if (details.status !== 303 || details.location?.includes('no_agent_yet'))
      throw new Error(`funding ${merchant.merchantId}: no agent was assigned (${details.status} ${details.location})`);
    const confirmed = await this.agentAction('agent-confirm', payIn);
    if (confirmed.status !== 200) throw new Error(`funding ${merchant.merchantId}: the confirm answered ${confirmed.status}`);
    // The ledger credits the pay-in from payments' events: wait for it before converting part of it.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const balances = await merchantRequest<{ settlement: Array<{ currency: string; available: number }> }>(
        this.log,
        merchant,
        { operation: 'status' },
        'GET',
        '/v2/merchant/balances',
      );
      if ((balances.body?.settlement.find((entry) => entry.currency === 'RUB')?.available ?? 0) > 0) break;
      if (Date.now() > deadline) throw new Error(`funding ${merchant.merchantId}: the ledger did not credit the pay-in within 30 s`);
      await sleep(250);
    }
    const converted = await this.convert(merchant, 100_000);
    if (converted !== 201) throw new Error(`funding ${merchant.merchantId}: the conversion to USDT answered ${converted}`);
  }

  private nextOrderId(prefix: string): string {
    this.counter += 1;
    return `chaos-${prefix}-${this.tag}-${this.counter.toString(36)}`;
  }

  private merchant(): LoadMerchant {
    return pick(this.merchants);
  }

  /** One operation of the mix, drawn with `draw` (0 ≤ draw < 1). */
  async step(draw: number, nowMs: number): Promise<void> {
    const operation = operationAt(draw);
    const sent = await this.run(operation, nowMs);
    if (!sent) await this.createPayIn(this.merchant(), randomAmount());
  }

  /** False when the operation's pool was empty and nothing was sent. */
  private async run(operation: Operation, nowMs: number): Promise<boolean> {
    switch (operation) {
      case 'pay-in':
        await this.createPayIn(this.merchant(), randomAmount());
        return true;
      case 'pay-in-exact-duplicate': {
        const earlier = this.payIns.length > 0 ? pick(this.payIns) : null;
        if (!earlier) return false;
        await merchantRequest(
          this.log,
          earlier.merchant,
          { operation, orderId: earlier.orderId, creates: 'payment' },
          'POST',
          '/v2/payments/incoming',
          earlier.body,
        );
        return true;
      }
      case 'pay-in-mismatched-duplicate': {
        const earlier = this.payIns.length > 0 ? pick(this.payIns) : null;
        if (!earlier) return false;
        const body = { ...earlier.body, amount: (earlier.body['amount'] as number) + 1 };
        await merchantRequest(this.log, earlier.merchant, { operation, orderId: earlier.orderId, creates: 'payment' }, 'POST', '/v2/payments/incoming', body);
        return true;
      }
      case 'payer-details': {
        const payIn = this.fresh.shift();
        if (!payIn) return false;
        const answer = await payerAsksForDetails(this.log, payIn.merchant.merchantId, payIn.orderId, payIn.redirectUrl);
        if (answer.status === 303 && !answer.location?.includes('no_agent_yet')) this.assigned.push(payIn);
        return true;
      }
      case 'agent-confirm':
      case 'agent-decline': {
        const payIn = this.assigned.shift();
        if (!payIn) return false;
        const answer = await this.agentAction(operation, payIn);
        if (operation === 'agent-decline' && answer.status === 200) this.declined.push({ ...payIn, atMs: nowMs });
        return true;
      }
      case 'cancel': {
        const payIn = this.fresh.shift();
        if (!payIn) return false;
        await merchantRequest(
          this.log,
          payIn.merchant,
          { operation, orderId: payIn.orderId },
          'POST',
          `/v2/payments/${encodeURIComponent(payIn.orderId)}/cancel`,
          {},
        );
        return true;
      }
      case 'payout': {
        const merchant = this.merchant();
        const orderId = this.nextOrderId('payout');
        const body = {
          order_id: orderId,
          amount: PAYOUT_RUB,
          currency: 'RUB',
          country: 'RU',
          method: 'bank_card',
          account_number: PAYOUT_ACCOUNT,
          callback_url: merchant.callbackUrl,
        };
        const answer = await merchantRequest(this.log, merchant, { operation, orderId, creates: 'payment' }, 'POST', '/v2/payments/outgoing', body);
        if (answer.status === 201) this.payouts.push({ merchant, orderId });
        return true;
      }
      case 'payout-take':
        return this.payOut();
      case 'dispute-open': {
        const index = this.declined.findIndex((payIn) => nowMs - payIn.atMs >= DISPUTE_AFTER_DECLINE_MS);
        if (index < 0) return false;
        const [payIn] = this.declined.splice(index, 1);
        const answer = await merchantRequest<{ dispute_id: string }>(this.log, payIn.merchant, { operation, orderId: payIn.orderId }, 'POST', '/v2/disputes', {
          order_id: payIn.orderId,
        });
        if (answer.status === 201 && answer.body?.dispute_id)
          this.openDisputes.push({ merchant: payIn.merchant, disputeId: answer.body.dispute_id, orderId: payIn.orderId, atMs: nowMs });
        return true;
      }
      case 'dispute-review': {
        const index = this.openDisputes.findIndex((dispute) => nowMs - dispute.atMs >= 1_000);
        if (index < 0) return false;
        const [dispute] = this.openDisputes.splice(index, 1);
        const decision = Math.random() < 0.5 ? 'ACCEPTED' : 'REJECTED';
        await backofficeRequest(
          this.log,
          this.operator,
          { operation, merchantId: dispute.merchant.merchantId, orderId: dispute.orderId, disputeId: dispute.disputeId },
          'POST',
          `/backoffice/v1/disputes/${dispute.merchant.merchantId}/${dispute.disputeId}/review`,
          {
            decision,
            ...(decision === 'REJECTED' ? { reason: 'the payer’s bank shows no transfer' } : {}),
          },
        );
        return true;
      }
      case 'withdrawal': {
        const merchant = this.merchant();
        const orderId = this.nextOrderId('withdrawal');
        const answer = await merchantRequest(this.log, merchant, { operation, orderId, creates: 'withdrawal' }, 'POST', '/v2/merchant/withdrawals', {
          order_id: orderId,
          amount: WITHDRAWAL_USDT,
          currency: 'USDT-ERC20',
          address: ERC20_ADDRESS,
        });
        if (answer.status === 201) this.withdrawals.push({ merchant, orderId });
        return true;
      }
      case 'conversion':
        await this.convert(this.merchant(), CONVERSION_RUB);
        return true;
      case 'status': {
        const payIn = this.payIns.length > 0 ? pick(this.payIns) : null;
        if (!payIn) return false;
        await merchantRequest(
          this.log,
          payIn.merchant,
          { operation, orderId: payIn.orderId },
          'GET',
          `/v2/payments/status/${encodeURIComponent(payIn.orderId)}`,
        );
        return true;
      }
      default:
        return false;
    }
  }

  private async createPayIn(merchant: LoadMerchant, amount: number): Promise<PayIn | null> {
    const orderId = this.nextOrderId('pay-in');
    const body = { order_id: orderId, amount, currency: 'RUB', country: 'RU', callback_url: merchant.callbackUrl };
    const answer = await merchantRequest<{ redirect_url?: string }>(
      this.log,
      merchant,
      { operation: 'pay-in', orderId, creates: 'payment' },
      'POST',
      '/v2/payments/incoming',
      body,
    );
    if (answer.status !== 201 || !answer.body?.redirect_url) return null;
    const payIn = { merchant, orderId, body, redirectUrl: answer.body.redirect_url };
    this.payIns.push(payIn);
    this.fresh.push(payIn);
    return payIn;
  }

  private agentAction(operation: 'agent-confirm' | 'agent-decline', payIn: PayIn) {
    const action = operation === 'agent-confirm' ? 'confirm' : 'decline';
    return backofficeRequest(
      this.log,
      this.agent.client,
      { operation, merchantId: payIn.merchant.merchantId, orderId: payIn.orderId },
      'POST',
      `/backoffice/v1/agent/orders/${payIn.merchant.merchantId}/${encodeURIComponent(payIn.orderId)}/${action}`,
      action === 'decline' ? { reason: 'no money arrived' } : {},
    );
  }

  /** The agent takes a payout, uploads the transfer's receipt and completes it with that receipt. */
  private async payOut(): Promise<boolean> {
    const payout = this.payouts.shift();
    if (!payout) return false;
    const merchantId = payout.merchant.merchantId;
    const base = `/backoffice/v1/agent/orders/${merchantId}/${encodeURIComponent(payout.orderId)}`;
    const meta = { merchantId, orderId: payout.orderId };
    if ((await backofficeRequest(this.log, this.agent.client, { operation: 'payout-take', ...meta }, 'POST', `${base}/take`, {})).status !== 200) return true;
    const receipt = await backofficeRequest<{ receipt_id: string }>(
      this.log,
      this.agent.client,
      { operation: 'payout-receipt', ...meta },
      'POST',
      `${base}/receipts`,
      Buffer.from('%PDF-1.7 transfer confirmation'),
      { 'x-file-name': 'transfer.pdf' },
    );
    if (receipt.status !== 201 || !receipt.body?.receipt_id) return true;
    await backofficeRequest(this.log, this.agent.client, { operation: 'payout-complete', ...meta }, 'POST', `${base}/complete`, {
      receipt_id: receipt.body.receipt_id,
    });
    return true;
  }

  /** An operator converts RUB to USDT for the merchant (how merchants get USDT to withdraw). */
  private async convert(merchant: RunMerchant, rub: number): Promise<number> {
    const conversionId = this.nextOrderId('conversion');
    const answer = await backofficeRequest(
      this.log,
      this.operator,
      { operation: 'conversion', merchantId: merchant.merchantId },
      'POST',
      `/backoffice/v1/merchants/${merchant.merchantId}/conversions`,
      {
        conversion_id: conversionId,
        from_currency: 'RUB',
        to_currency: 'USDT',
        amount: rub,
        rate: '0.01',
        reason: 'chaos run: USDT for withdrawals',
      },
    );
    return answer.status;
  }
}

function operationAt(draw: number): Operation {
  const total = LOAD_MIX.reduce((sum, [, weight]) => sum + weight, 0);
  let point = draw * total;
  for (const [operation, weight] of LOAD_MIX) {
    if (point < weight) return operation;
    point -= weight;
  }
  return 'pay-in';
}

/** RUB with kopecks inside the default catalog's limits, well below a funding pay-in. */
const randomAmount = () => Math.round(10_000 + Math.random() * 490_000) / 100;
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
