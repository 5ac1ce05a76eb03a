import type { LoadClient, MerchantCredentials } from './http-client';
import { jsonOf } from './http-client';
import { payInWithAgent } from './history';
import { mixPicker, W5_MIX, type W5Operation } from './mix';
import type { Outcome, SendRequest } from './open-loop';
import {
  AcceptedWithdrawals,
  MASKED_PAYOUT_ACCOUNT,
  PAYOUT_AMOUNT,
  payInBody,
  payoutBody,
  pick,
  randomPayInAmount,
  sendWithdrawal,
  type CreatedOrder,
  type OrderIds,
} from './workloads';

/**
 * W5, the mixed workload of the performance design: each request draws its operation from
 * W5_MIX (40 % status, 10 % balances, 5 % list, 25 % pay-in, 10 % payout, 5 % withdrawal, 3 %
 * cancel, 2 % dispute open) over merchants funded in RUB and USDT whose callbacks go to the
 * generator's sink. Cancels take the oldest pay-in nobody cancelled yet; dispute opens take a
 * prepared pay-in whose agent is assigned (a dispute needs one). When a pool runs dry the
 * operation still goes out, on an order already used, and must get the documented refusal
 * (409 ORDER_NOT_CANCELLABLE, 400 PAYMENT_REJECTED dispute_already_open); the shortfall is
 * counted and reported, so a run that outgrew its pools says so instead of measuring less.
 */
export class MixedState {
  /** Every W5 pay-in, for status reads. */
  readonly orders: CreatedOrder[] = [];
  /** PENDING pay-ins nobody cancelled yet, oldest first. */
  readonly cancellable: CreatedOrder[] = [];
  readonly cancelled: CreatedOrder[] = [];
  /** Pay-ins with an agent assigned and no dispute yet. */
  readonly disputable: CreatedOrder[] = [];
  readonly disputed: CreatedOrder[] = [];
  readonly shortfalls = { cancel: 0, dispute: 0 };
  readonly payouts = { insufficientFunds: 0 };
  /** Requests and unexpected answers per operation. */
  readonly operations = new Map<W5Operation, { sent: number; unexpected: number }>();

  constructor(readonly withdrawals: AcceptedWithdrawals) {}

  describe(): string {
    const operations = [...this.operations]
      .map(([operation, counts]) => `${operation} ${counts.sent}${counts.unexpected > 0 ? ` (${counts.unexpected} unexpected)` : ''}`)
      .join(', ');
    const shortfalls =
      this.shortfalls.cancel + this.shortfalls.dispute > 0
        ? `; pools ran dry: ${this.shortfalls.cancel} cancels and ${this.shortfalls.dispute} dispute opens went to used orders`
        : '';
    return `W5 requests by operation: ${operations}${shortfalls}`;
  }
}

/**
 * Prepares W5's pools: `disputable` pay-ins with their agent assigned and `cancellable` plain
 * ones, spread over the merchants, four requests at a time.
 */
export async function prepareMixedPools(
  client: LoadClient,
  merchants: readonly MerchantCredentials[],
  ids: OrderIds,
  callbackUrl: string,
  state: MixedState,
  sizes: { disputable: number; cancellable: number },
): Promise<void> {
  const jobs: Array<'disputable' | 'cancellable'> = [
    ...Array<'disputable'>(sizes.disputable).fill('disputable'),
    ...Array<'cancellable'>(sizes.cancellable).fill('cancellable'),
  ];
  const worker = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const merchant = pick(merchants);
      const orderId = ids.next(`w5-${job}`);
      const body = payInBody(orderId, randomPayInAmount(), callbackUrl);
      if (job === 'disputable') {
        if (!(await payInWithAgent(client, merchant, orderId, body['amount'] as number, callbackUrl)))
          throw new Error(`preparing W5: the pay-in ${orderId} could not be created with an agent assigned`);
      } else {
        const answer = await client.sendSigned(merchant, 'POST', '/v2/payments/incoming', body);
        if (answer.status !== 201)
          throw new Error(`preparing W5: creating the pay-in ${orderId} answered ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`);
      }
      const order = { merchant, orderId, body };
      state.orders.push(order);
      state[job].push(order);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

export function mixedWorkload(
  client: LoadClient,
  merchants: readonly MerchantCredentials[],
  ids: OrderIds,
  callbackUrl: string,
  state: MixedState,
  draw: () => number = Math.random,
): SendRequest {
  const operationOf = mixPicker(W5_MIX);
  const run: Record<W5Operation, () => Promise<Outcome>> = {
    status: async () => {
      const order = pick(state.orders);
      const answer = await client.sendSigned(order.merchant, 'GET', `/v2/payments/status/${order.orderId}`);
      return { status: answer.status, ok: answer.status === 200 };
    },
    balances: async () => {
      const answer = await client.sendSigned(pick(merchants), 'GET', '/v2/merchant/balances');
      return { status: answer.status, ok: answer.status === 200 && Array.isArray(jsonOf<{ settlement?: unknown }>(answer)?.settlement) };
    },
    list: async () => {
      const answer = await client.sendSigned(pick(merchants), 'POST', '/v2/payments/incoming/list', {});
      return { status: answer.status, ok: answer.status === 200 && Array.isArray(jsonOf<{ data?: unknown }>(answer)?.data) };
    },
    payIn: async () => {
      const merchant = pick(merchants);
      const orderId = ids.next('w5');
      const body = payInBody(orderId, randomPayInAmount(), callbackUrl);
      const answer = await client.sendSigned(merchant, 'POST', '/v2/payments/incoming', body);
      if (answer.status === 201) {
        state.orders.push({ merchant, orderId, body });
        state.cancellable.push({ merchant, orderId, body });
      }
      return { status: answer.status, ok: answer.status === 201 };
    },
    payout: async () => {
      const answer = await client.sendSigned(pick(merchants), 'POST', '/v2/payments/outgoing', payoutBody(ids.next('w5-payout'), PAYOUT_AMOUNT, callbackUrl));
      if (answer.status === 400 && answer.body.includes('INSUFFICIENT_FUNDS')) state.payouts.insufficientFunds += 1;
      return { status: answer.status, ok: answer.status === 201 && jsonOf<{ account_number?: string }>(answer)?.account_number === MASKED_PAYOUT_ACCOUNT };
    },
    withdrawal: () => sendWithdrawal(client, pick(merchants), ids, state.withdrawals),
    cancel: async () => {
      const fresh = state.cancellable.shift();
      const order = fresh ?? pick(state.cancelled);
      if (!fresh) state.shortfalls.cancel += 1;
      const answer = await client.sendSigned(order.merchant, 'POST', `/v2/payments/${order.orderId}/cancel`, {});
      if (fresh && answer.status === 200) state.cancelled.push(order);
      return { status: answer.status, ok: fresh ? answer.status === 200 : answer.status === 409 && answer.body.includes('ORDER_NOT_CANCELLABLE') };
    },
    disputeOpen: async () => {
      const fresh = state.disputable.shift();
      const order = fresh ?? pick(state.disputed);
      if (!fresh) state.shortfalls.dispute += 1;
      const answer = await client.sendSigned(order.merchant, 'POST', '/v2/disputes', { order_id: order.orderId });
      if (fresh && answer.status === 201) state.disputed.push(order);
      return { status: answer.status, ok: fresh ? answer.status === 201 : answer.status === 400 && answer.body.includes('dispute_already_open') };
    },
  };
  return async () => {
    const operation = operationOf(draw());
    const outcome = await run[operation]();
    const counts = state.operations.get(operation) ?? { sent: 0, unexpected: 0 };
    counts.sent += 1;
    if (!outcome.ok) counts.unexpected += 1;
    state.operations.set(operation, counts);
    return outcome;
  };
}
