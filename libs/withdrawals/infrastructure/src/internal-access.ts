import type { ServiceAccessPolicy } from '@mp/shared-service-auth';

/** Who may call which route of the withdrawals service's internal API (derived from the callers' code): reads only. */
export const WITHDRAWALS_INTERNAL_ACCESS: ServiceAccessPolicy = {
  gateway: [
    'GET /internal/event-store/anchors',
    'GET /internal/merchants/:merchantId/withdrawals/:orderId',
    'GET /internal/withdrawals/:merchantId/:orderId',
    'GET /internal/withdrawals/:merchantId/:orderId/as-of',
    'GET /internal/merchants/:merchantId/withdrawals',
    'GET /internal/withdrawal-assets',
    'GET /internal/withdrawals/stuck',
  ],
  // The withdrawal behind an orphan hold.
  ledger: ['GET /internal/merchants/:merchantId/withdrawals/:orderId'],
};
