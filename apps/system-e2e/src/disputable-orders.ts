import type { SignedClient, SystemUnderTest } from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';

/**
 * The disputes service decides on its projection of payments' events: waits until it has this
 * order as it is now (with or without its agent), so an open is judged on the current order.
 */
export async function disputesKnow(system: SystemUnderTest, owner: SignedClient, orderId: string, agentAssigned: boolean): Promise<void> {
  await eventually(
    () =>
      system.query<{ agent_id: string | null }>('disputes', 'SELECT agent_id FROM dispute_orders WHERE merchant_id = $1 AND order_id = $2', [
        owner.credentials.merchantId,
        orderId,
      ]),
    (rows) => rows.length === 1 && (rows[0]?.agent_id !== null) === agentAssigned,
    `disputes to know ${orderId}`,
    20_000,
  );
}
