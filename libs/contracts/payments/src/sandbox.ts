/**
 * The agent id of the sandbox's simulated agent (docs/api/sandbox.md): test-mode orders carry
 * it in events, callbacks and views, and the disputes service reviews their disputes as it.
 */
export const SANDBOX_AGENT_ID = 'sandbox-agent';
