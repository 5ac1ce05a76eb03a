import type { ServiceAccessPolicy } from '@mp/shared-service-auth';

/** Who may call which route of the disputes service's internal API (derived from the callers' code). */
export const DISPUTES_INTERNAL_ACCESS: ServiceAccessPolicy = {
  gateway: [
    'GET /internal/event-store/anchors',
    'GET /internal/merchants/:merchantId/disputes',
    'GET /internal/disputes',
    'GET /internal/merchants/:merchantId/disputes/:disputeId',
    'GET /internal/merchants/:merchantId/disputes/:disputeId/as-of',
    'POST /internal/merchants/:merchantId/dispute-receipts',
    'GET /internal/merchants/:merchantId/disputes/:disputeId/receipt',
    'GET /internal/dispute-receipt-downloads',
    'POST /internal/disputes/:disputeId/review',
  ],
  'test-harness': ['POST /internal/test/clock'],
};
