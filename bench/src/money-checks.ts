import type { BackofficeClient } from '@mp/shared-testing';
import { jsonOf, type LoadClient, type MerchantCredentials } from './http-client';
import type { AcceptedWithdrawals } from './workloads';

/** The operator's conversion rate: 0.01 USDT per RUB (less the ledger's 1 % conversion fee). */
const RUB_TO_USDT_RATE = '0.01';
const USDT_MINOR_PER_UNIT = 1_000_000;

/** A merchant's available settlement balance in `currency`, as `GET /v2/merchant/balances` shows it. */
export async function availableBalance(gateway: LoadClient, merchant: MerchantCredentials, currency: string): Promise<number> {
  const answer = await gateway.sendSigned(merchant, 'GET', '/v2/merchant/balances');
  if (answer.status !== 200) throw new Error(`reading ${merchant.merchantId}'s balances answered ${answer.status}`);
  return (
    jsonOf<{ settlement: Array<{ currency: string; available: number }> }>(answer)?.settlement.find((entry) => entry.currency === currency)?.available ?? 0
  );
}

/**
 * Converts `rub` of the merchant's RUB into USDT as an operator (docs/operations/ledger.md: how
 * merchants get USDT); a conversion over the one-operator limit waits for `approver`, a second
 * operator (docs/operations/operators.md), as in production. Returns the USDT available afterwards.
 */
export async function convertRubToUsdt(
  operator: BackofficeClient,
  approver: BackofficeClient,
  gateway: LoadClient,
  merchant: MerchantCredentials,
  rub: number,
  conversionId: string,
): Promise<number> {
  const converted = await operator.request('POST', `/backoffice/v1/merchants/${merchant.merchantId}/conversions`, {
    conversion_id: conversionId,
    from_currency: 'RUB',
    to_currency: 'USDT',
    amount: rub,
    rate: RUB_TO_USDT_RATE,
    reason: 'benchmark: funding withdrawals',
  });
  if (converted.status === 202) {
    const approved = await approver.request('POST', `/backoffice/v1/approvals/${converted.body.approval_id}/approve`);
    if (approved.status !== 200)
      throw new Error(`approving conversion ${conversionId} for ${merchant.merchantId} answered ${approved.status} ${approved.text}`);
  } else if (converted.status !== 201) {
    throw new Error(`converting ${rub} RUB to USDT for ${merchant.merchantId} answered ${converted.status} ${converted.text}`);
  }
  return availableBalance(gateway, merchant, 'USDT');
}

interface ListedWithdrawal {
  order_id: string;
  status: string;
  amount: number;
  network_fee: number;
}

/** Every withdrawal of the merchant, newest first, through the list endpoint's pages. */
async function allWithdrawals(gateway: LoadClient, merchant: MerchantCredentials): Promise<ListedWithdrawal[]> {
  const all: ListedWithdrawal[] = [];
  let cursor: string | null = null;
  do {
    const answer = await gateway.sendSigned(merchant, 'POST', '/v2/merchant/withdrawals/list', { limit: 100, ...(cursor ? { cursor } : {}) });
    const page = jsonOf<{ data: ListedWithdrawal[]; next_cursor: string | null }>(answer);
    if (answer.status !== 200 || !page) throw new Error(`listing ${merchant.merchantId}'s withdrawals answered ${answer.status}`);
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

/**
 * "Each accepted withdrawal debited exactly once", from two services' views: every withdrawal
 * the generator saw accepted is in the withdrawals service's list, and the ledger's available
 * USDT is what the merchant was funded with less amount + network fee of each listed withdrawal
 * that did not fail (a failed one returns its money). Returns the problems found.
 */
export async function checkWithdrawalMoney(
  gateway: LoadClient,
  merchants: readonly MerchantCredentials[],
  fundedUsdt: ReadonlyMap<string, number>,
  accepted: AcceptedWithdrawals,
): Promise<string[]> {
  const problems: string[] = [];
  for (const merchant of merchants) {
    const listed = await allWithdrawals(gateway, merchant);
    const listedIds = new Set(listed.map((withdrawal) => withdrawal.order_id));
    const missing = [...(accepted.byMerchant.get(merchant.merchantId) ?? [])].filter((orderId) => !listedIds.has(orderId));
    if (missing.length > 0) problems.push(`${merchant.merchantId}: ${missing.length} accepted withdrawals are not listed (e.g. ${missing[0]})`);
    // In USDT's minor units (6 decimals): no floating-point drift over thousands of withdrawals.
    const minor = (usdt: number) => Math.round(usdt * USDT_MINOR_PER_UNIT);
    const debited = listed
      .filter((withdrawal) => withdrawal.status !== 'FAILED')
      .reduce((sum, withdrawal) => sum + minor(withdrawal.amount) + minor(withdrawal.network_fee), 0);
    const expected = minor(fundedUsdt.get(merchant.merchantId) ?? 0) - debited;
    const available = minor(await availableBalance(gateway, merchant, 'USDT'));
    if (available !== expected)
      problems.push(
        `${merchant.merchantId}: USDT available ${available / USDT_MINOR_PER_UNIT}, expected ${expected / USDT_MINOR_PER_UNIT} (funded ${fundedUsdt.get(merchant.merchantId)}, ${listed.length} withdrawals listed)`,
      );
  }
  return problems;
}
