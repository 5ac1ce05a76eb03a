import { sinkKey, type CallbackSink } from './callback-sink';
import { endToEndLatencies, type EndToEndSummary } from './end-to-end';
import { jsonOf, type LoadClient, type MerchantCredentials } from './http-client';
import { runOpenLoop } from './open-loop';
import { agentConfirms, payInWithAgent } from './history';
import type { OrderIds } from './workloads';

/** The pay-in each chain confirms: 1,000.00 RUB, credited as 975.00 after the default catalog's 2.5 % fee. */
const CHAIN_AMOUNT_RUB = 1000;
const CHAIN_CREDIT_RUB = 975;

export interface VisibilityResult {
  chainsPerSecond: number;
  /** Agent confirmations that were not answered 200 (their effects count as never seen). */
  confirmFailures: number;
  /**
   * From the confirmation call to its answer: the command's round trip through the gateway,
   * Kafka and payments. What the two latencies below add to it happens after payments committed.
   */
  confirmed: EndToEndSummary;
  /** From the confirmation call to a balance read showing the credit. */
  balance: EndToEndSummary;
  /** From the confirmation call to the `payment.succeeded` callback arriving at the sink. */
  callback: EndToEndSummary;
  pollIntervalMs: number;
}

/**
 * Issue 21's two end-to-end latencies, from one open loop of agent confirmations: each pay-in
 * was created (callback_url at the generator's sink) and its payer asked for the payment
 * details beforehand, so the agent's confirmation is the API call timed. The confirmations are
 * sent at a fixed rate; for each, the latency runs from its intended send time to (a) the first
 * `GET /v2/merchant/balances` showing the credit, polled every `pollIntervalMs` after the
 * confirmation answered, and (b) the callback's arrival at the sink. Every chain has a merchant
 * of its own, so "shows the credit" is exact: that merchant's RUB balance was 0 before.
 */
export async function measureVisibility(options: {
  gateway: LoadClient;
  agentToken: string;
  /** One fresh merchant per chain. */
  merchants: readonly MerchantCredentials[];
  ids: OrderIds;
  sink: CallbackSink;
  chainsPerSecond: number;
  pollIntervalMs: number;
  /** How long after its intended send time a chain's effects are waited for. */
  giveUpMs: number;
  /** Load running meanwhile (the lag measurement's W1 background). */
  background?: () => Promise<unknown>;
}): Promise<VisibilityResult> {
  const chains = await prepareChains(options.gateway, options.merchants, options.ids, options.sink.url);
  const intendedAt = new Map<string, number>();
  const confirmedAt = new Map<string, number>();
  const balanceSeenAt = new Map<string, number>();
  let confirmFailures = 0;
  const run = runOpenLoop({
    ratePerSecond: options.chainsPerSecond,
    durationMs: (chains.length * 1000) / options.chainsPerSecond,
    record: () => undefined,
    send: async (index, intended) => {
      const { merchant, orderId } = chains[index];
      intendedAt.set(orderId, intended);
      const confirmed = await agentConfirms({ gateway: options.gateway, agentToken: options.agentToken }, merchant, orderId);
      if (confirmed.status !== 200) {
        confirmFailures += 1;
        return { status: confirmed.status, ok: false };
      }
      confirmedAt.set(orderId, performance.now());
      while (performance.now() < intended + options.giveUpMs) {
        const answer = await options.gateway.sendSigned(merchant, 'GET', '/v2/merchant/balances');
        const rub = jsonOf<{ settlement: Array<{ currency: string; available: number }> }>(answer)?.settlement.find((entry) => entry.currency === 'RUB');
        if ((rub?.available ?? 0) >= CHAIN_CREDIT_RUB) {
          balanceSeenAt.set(orderId, performance.now());
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs));
      }
      return { status: 200, ok: true };
    },
  });
  await Promise.all([run, options.background?.()]);
  const lastIntended = Math.max(0, ...intendedAt.values());
  const callbackKeys = chains.map((chain) => sinkKey('payment.succeeded', chain.orderId));
  const gaveUpAt = await options.sink.waitFor(callbackKeys, Math.max(0, lastIntended + options.giveUpMs - performance.now()));
  const callbackSeenAt = new Map(
    chains.flatMap((chain) => {
      const at = options.sink.firstArrival.get(sinkKey('payment.succeeded', chain.orderId));
      return at === undefined ? [] : [[chain.orderId, at] as const];
    }),
  );
  return {
    chainsPerSecond: options.chainsPerSecond,
    confirmFailures,
    confirmed: endToEndLatencies(intendedAt, confirmedAt, lastIntended + options.giveUpMs),
    balance: endToEndLatencies(intendedAt, balanceSeenAt, Math.max(gaveUpAt, lastIntended + options.giveUpMs)),
    callback: endToEndLatencies(intendedAt, callbackSeenAt, gaveUpAt),
    pollIntervalMs: options.pollIntervalMs,
  };
}

/** Each chain's pay-in with its agent assigned (payInWithAgent), four at a time. */
async function prepareChains(
  gateway: LoadClient,
  merchants: readonly MerchantCredentials[],
  ids: OrderIds,
  callbackUrl: string,
): Promise<Array<{ merchant: MerchantCredentials; orderId: string }>> {
  const queue = [...merchants];
  const chains: Array<{ merchant: MerchantCredentials; orderId: string }> = [];
  const worker = async () => {
    for (let merchant = queue.shift(); merchant; merchant = queue.shift()) {
      const orderId = ids.next('e2e');
      if (!(await payInWithAgent(gateway, merchant, orderId, CHAIN_AMOUNT_RUB, callbackUrl)))
        throw new Error(`preparing a latency chain: the pay-in ${orderId} could not be created with an agent assigned`);
      chains.push({ merchant, orderId });
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return chains;
}

export function describeVisibility(result: VisibilityResult): string {
  const side = (name: string, summary: EndToEndSummary) =>
    summary.p50 === null
      ? `${name}: no chains`
      : `${name} p50 ${summary.p50.toFixed(1)} p90 ${(summary.p90 as number).toFixed(1)} p99 ${(summary.p99 as number).toFixed(1)} max ${(summary.max as number).toFixed(1)} ms (${summary.seen} of ${summary.calls} seen)`;
  return (
    `agent confirmation at ${result.chainsPerSecond}/s → ${side('answered', result.confirmed)}; ${side('balance visible', result.balance)}; ${side('callback delivered', result.callback)}` +
    `${result.confirmFailures > 0 ? `; ${result.confirmFailures} confirmations failed` : ''} (balance polled every ${result.pollIntervalMs} ms)`
  );
}
