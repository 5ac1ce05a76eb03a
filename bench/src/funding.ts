/**
 * Merchants for the benchmark's and the soak run's workloads: created through the back office
 * and funded with confirmed pay-ins, as a merchant's money really arrives.
 */
import type { BackofficeClient } from '@mp/shared-testing';
import { confirmedPayIn } from './history';
import { jsonOf, type LoadClient, type MerchantCredentials } from './http-client';
import type { OrderIds } from './workloads';

/** One funding pay-in: the catalog's maximum. */
export const FUNDING_PAY_IN_RUB = 500_000;
/** What a funding pay-in credits: the catalog's 2.5 % pay-in fee taken. */
export const FUNDING_PAY_IN_NET_RUB = FUNDING_PAY_IN_RUB * 0.975;

export async function createMerchants(operator: BackofficeClient, count: number, name: string, defaultCallbackUrl?: string): Promise<MerchantCredentials[]> {
  const merchants: MerchantCredentials[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) {
      const response = await operator.request('POST', '/backoffice/v1/merchants', {
        name: `${name} ${index + 1}`,
        ...(defaultCallbackUrl ? { default_callback_url: defaultCallbackUrl } : {}),
      });
      if (response.status !== 201) throw new Error(`creating a merchant failed: ${response.status} ${response.text}`);
      merchants[index] = { merchantId: response.body.merchant_id, apiSecret: response.body.api_secret };
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return merchants;
}

/**
 * Confirmed pay-ins of FUNDING_PAY_IN_RUB each, then waits (up to creditTimeoutMs per merchant)
 * until the ledger shows them. Returns each merchant's available RUB.
 */
export async function fundMerchants(
  chain: { gateway: LoadClient; agentToken: string },
  gateway: LoadClient,
  ids: OrderIds,
  plan: Array<{ merchant: MerchantCredentials; payIns: number }>,
  { idPrefix = 'funding', creditTimeoutMs = 60_000 }: { idPrefix?: string; creditTimeoutMs?: number } = {},
): Promise<number[]> {
  const jobs = plan.flatMap(({ merchant, payIns }) => Array.from({ length: payIns }, () => merchant));
  const workers = Array.from({ length: 4 }, async () => {
    for (let merchant = jobs.shift(); merchant; merchant = jobs.shift()) {
      if ((await confirmedPayIn(chain, merchant, ids.next(idPrefix), FUNDING_PAY_IN_RUB)) === null) throw new Error('a funding pay-in could not be confirmed');
    }
  });
  await Promise.all(workers);
  const available: number[] = [];
  for (const { merchant, payIns } of plan) {
    const deadline = Date.now() + creditTimeoutMs;
    let rub = 0;
    while (Date.now() < deadline) {
      const balances = jsonOf<{ settlement: Array<{ currency: string; available: number }> }>(
        await gateway.sendSigned(merchant, 'GET', '/v2/merchant/balances'),
      );
      rub = balances?.settlement.find((entry) => entry.currency === 'RUB')?.available ?? 0;
      if (rub >= FUNDING_PAY_IN_NET_RUB * payIns - 0.005) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    available.push(rub);
  }
  return available;
}
