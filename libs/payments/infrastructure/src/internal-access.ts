import type { ServiceAccessPolicy } from '@mp/shared-service-auth';

/**
 * Who may call which route of the payments service's internal API: the gateway (merchant
 * reads, the payer page, back-office reads and writes), the ledger (the order behind an
 * orphan hold) and, in tests only, the test clock. Derived from the callers' code.
 */
export const PAYMENTS_INTERNAL_ACCESS: ServiceAccessPolicy = {
  gateway: [
    'GET /internal/event-store/anchors',
    'GET /internal/merchants/:merchantId/orders/:orderId',
    'GET /internal/merchants/:merchantId/orders',
    'GET /internal/merchants/:merchantId/orders/:orderId/receipts',
    'GET /internal/orders/:merchantId/:orderId',
    'GET /internal/orders/:merchantId/:orderId/as-of',
    'GET /internal/agents/:agentId/orders/:merchantId/:orderId',
    'GET /internal/agents/:agentId/orders',
    'GET /internal/payer-pages/:token',
    'GET /internal/merchants/:merchantId/methods',
    'PUT /internal/merchants/:merchantId/methods',
    'PUT /internal/agents/:agentId',
    'GET /internal/agents',
    'POST /internal/agents/:agentId/orders/:merchantId/:orderId/receipts',
    'GET /internal/receipts/:receiptId/content',
    'POST /internal/merchants/:merchantId/payout-recipient-accounts',
    'POST /internal/agents/:agentId/orders/:merchantId/:orderId/account-number-reveals',
    'GET /internal/account-number-reveals',
  ],
  ledger: ['GET /internal/merchants/:merchantId/orders/:orderId'],
  'test-harness': ['POST /internal/test/clock'],
};
