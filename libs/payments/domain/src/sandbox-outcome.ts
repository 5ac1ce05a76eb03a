/**
 * The sandbox's simulated agent (docs/api/sandbox.md). Orders of a test-mode merchant never
 * reach a live agent: this agent takes them and settles each by its amount's last two digits
 * in minor units, so an integrator can produce every outcome on purpose.
 */

export { SANDBOX_AGENT_ID } from '@mp/contracts-payments';

/** What the payer page shows for a test order the sandbox agent took: there is nobody to pay. */
export const SANDBOX_AGENT_PROFILE = {
  display_name: 'Sandbox agent (test mode)',
  payment_details: 'Test mode: no money moves and there is nothing to pay. The order settles by its amount (docs/api/sandbox.md).',
} as const;

export type SandboxOutcome = 'succeed' | 'decline' | 'timeout';

/** Amounts ending in these two digits (minor units) are declined or left to expire; any other succeeds. */
export const SANDBOX_DECLINE_ENDING = 1n;
export const SANDBOX_TIMEOUT_ENDING = 2n;

/** What the simulated agent's decline says, as `failure_reason` shows it. */
export const SANDBOX_DECLINE_REASON = 'sandbox: declined by the simulated agent (amount ending in 01)';

/** The outcome the simulated agent gives an order of this amount in minor units, e.g. 150001 → decline. */
export function sandboxOutcomeFor(amountMinor: bigint): SandboxOutcome {
  const ending = amountMinor % 100n;
  if (ending === SANDBOX_DECLINE_ENDING) return 'decline';
  if (ending === SANDBOX_TIMEOUT_ENDING) return 'timeout';
  return 'succeed';
}
