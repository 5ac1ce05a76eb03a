import { randomBytes } from 'node:crypto';
import { jsonOf, type LoadClient, type MerchantCredentials } from './http-client';
import type { Outcome, SendRequest } from './open-loop';

/**
 * The workloads, as request factories over one contender's merchants. Each request is
 * signed when it is sent; each answer is checked against what the workload expects.
 */
export const WORKLOADS = {
  createPayIn: 'W1 create pay-in',
  status: 'W2 status read',
  payout: 'W3 payout + hold, 8 merchants',
  payoutHot: 'W3 payout + hold, 1 hot merchant',
  withdrawal: 'W4 withdrawal',
  mixed: 'W5 mixed',
} as const;

export interface CreatedOrder {
  merchant: MerchantCredentials;
  orderId: string;
  body: Record<string, unknown>;
}

const CALLBACK_URL = 'https://shop.example/callbacks';
/** Exact retries and mismatched duplicates of W1 (issue 9, performance.md W1). */
export const EXACT_RETRY_SHARE = 0.05;
export const MISMATCH_SHARE = 0.01;
export const UNKNOWN_STATUS_SHARE = 0.02;

export const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];

/** An amount in RUB with kopecks, inside the default catalog's pay-in limits (100.00 to 500,000.00). */
export function randomPayInAmount(): number {
  return Math.round(10_000 + Math.random() * 490_000) / 100;
}

/** `callbackUrl`: W1–W3 keep a host nobody serves (their orders have no outcome); W5 and the latency chains point at the generator's sink. */
export function payInBody(orderId: string, amount: number, callbackUrl = CALLBACK_URL): Record<string, unknown> {
  return { order_id: orderId, amount, currency: 'RUB', country: 'RU', callback_url: callbackUrl };
}

const PAYOUT_ACCOUNT = '4111 1111 1111 1111';
/** How merchants see the recipient's account in every answer: only its last four digits. */
export const MASKED_PAYOUT_ACCOUNT = `•••• ${PAYOUT_ACCOUNT.slice(-4)}`;

export function payoutBody(orderId: string, amount: number, callbackUrl = CALLBACK_URL): Record<string, unknown> {
  return { ...payInBody(orderId, amount, callbackUrl), method: 'bank_card', account_number: PAYOUT_ACCOUNT };
}

/** Unique across contenders, rounds and runs: a run tag, the step and a counter. */
export class OrderIds {
  private sequence = 0;
  private readonly runTag = randomBytes(3).toString('hex');
  next(prefix: string): string {
    this.sequence += 1;
    return `${prefix}-${this.runTag}-${this.sequence.toString(36)}`;
  }
}

/** W1: new pay-ins (201), 5 % exact retries of earlier ones (201, the same order) and 1 % mismatched duplicates (409). */
export function createPayInWorkload(
  client: LoadClient,
  merchants: readonly MerchantCredentials[],
  ids: OrderIds,
  created: CreatedOrder[],
  withDuplicates = true,
): SendRequest {
  return async (): Promise<Outcome> => {
    const draw = withDuplicates ? Math.random() : 1;
    if (created.length > 0 && draw < EXACT_RETRY_SHARE + MISMATCH_SHARE) {
      const earlier = pick(created);
      if (draw < EXACT_RETRY_SHARE) {
        const answer = await client.sendSigned(earlier.merchant, 'POST', '/v2/payments/incoming', earlier.body);
        return { status: answer.status, ok: answer.status === 201 };
      }
      const different = { ...earlier.body, amount: Math.round((earlier.body['amount'] as number) * 100 + 100) / 100 };
      const answer = await client.sendSigned(earlier.merchant, 'POST', '/v2/payments/incoming', different);
      return { status: answer.status, ok: answer.status === 409 };
    }
    const merchant = pick(merchants);
    const orderId = ids.next('w1');
    const body = payInBody(orderId, randomPayInAmount());
    const answer = await client.sendSigned(merchant, 'POST', '/v2/payments/incoming', body);
    if (answer.status === 201) created.push({ merchant, orderId, body });
    return { status: answer.status, ok: answer.status === 201 };
  };
}

/** W2: status of existing orders (200) and 2 % unknown ids (404). */
export function statusWorkload(client: LoadClient, created: readonly CreatedOrder[], ids: OrderIds, withUnknown = true): SendRequest {
  if (created.length === 0) throw new Error('W2 needs the orders W1 created');
  return async (): Promise<Outcome> => {
    const order = pick(created);
    if (withUnknown && Math.random() < UNKNOWN_STATUS_SHARE) {
      const answer = await client.sendSigned(order.merchant, 'GET', `/v2/payments/status/${ids.next('unknown')}`);
      return { status: answer.status, ok: answer.status === 404 };
    }
    const answer = await client.sendSigned(order.merchant, 'GET', `/v2/payments/status/${order.orderId}`);
    return { status: answer.status, ok: answer.status === 200 };
  };
}

/** The smallest payout the default catalog allows (1,000.00 RUB; the hold is amount + 1.5 % + 50.00). */
export const PAYOUT_AMOUNT = 1000;
export const PAYOUT_HOLD_RUB = 1065;

/** W3: payouts, each placing a ledger hold before the order exists (201). */
export function payoutWorkload(
  client: LoadClient,
  merchants: readonly MerchantCredentials[],
  ids: OrderIds,
  counts: { insufficientFunds: number },
  callbackUrl?: string,
): SendRequest {
  return async (): Promise<Outcome> => {
    const merchant = pick(merchants);
    const answer = await client.sendSigned(merchant, 'POST', '/v2/payments/outgoing', payoutBody(ids.next('w3'), PAYOUT_AMOUNT, callbackUrl));
    if (answer.status === 400 && answer.body.includes('INSUFFICIENT_FUNDS')) counts.insufficientFunds += 1;
    // A created payout answers the recipient's account masked; the full number in an answer is an error, not a success.
    return { status: answer.status, ok: answer.status === 201 && jsonOf<{ account_number?: string }>(answer)?.account_number === MASKED_PAYOUT_ACCOUNT };
  };
}

/** A valid TRON address (the withdrawals e2e tests' own); the simulated network accepts every send to it. */
export const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** The smallest USDT-TRC20 withdrawal of the shipped asset table, and what it takes from the USDT balance with its 1.00 network fee. */
export const WITHDRAWAL_AMOUNT_USDT = 10;
export const WITHDRAWAL_DEBIT_USDT = 11;

/** The withdrawals each merchant had accepted (201), for the money check after the run. */
export class AcceptedWithdrawals {
  readonly byMerchant = new Map<string, Set<string>>();
  insufficientFunds = 0;
  add(merchant: MerchantCredentials, orderId: string): void {
    const mine = this.byMerchant.get(merchant.merchantId) ?? new Set<string>();
    mine.add(orderId);
    this.byMerchant.set(merchant.merchantId, mine);
  }
}

/** One withdrawal of 10.00 USDT-TRC20 by one of `merchants`: 201 PENDING, the amount and fee frozen within the request. */
export async function sendWithdrawal(client: LoadClient, merchant: MerchantCredentials, ids: OrderIds, accepted: AcceptedWithdrawals): Promise<Outcome> {
  const orderId = ids.next('w4');
  const answer = await client.sendSigned(merchant, 'POST', '/v2/merchant/withdrawals', {
    order_id: orderId,
    amount: WITHDRAWAL_AMOUNT_USDT,
    currency: 'USDT-TRC20',
    address: TRON_ADDRESS,
  });
  if (answer.status === 400 && answer.body.includes('INSUFFICIENT_FUNDS')) accepted.insufficientFunds += 1;
  const ok = answer.status === 201 && jsonOf<{ status?: string }>(answer)?.status === 'PENDING';
  if (ok) accepted.add(merchant, orderId);
  return { status: answer.status, ok };
}

/** W4: withdrawals spread over `merchants` (funded with USDT first). */
export function withdrawalWorkload(client: LoadClient, merchants: readonly MerchantCredentials[], ids: OrderIds, accepted: AcceptedWithdrawals): SendRequest {
  return () => sendWithdrawal(client, pick(merchants), ids, accepted);
}
