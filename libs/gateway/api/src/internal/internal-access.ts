import type { ServiceAccessPolicy } from '@mp/shared-service-auth';

/**
 * Who may call the gateway's internal listener: the callback dispatcher, for a merchant's
 * webhook profile; the test harness, for the test clock (served only with TEST_CLOCK_ENABLED).
 */
export const GATEWAY_INTERNAL_ACCESS: ServiceAccessPolicy = {
  callbacks: ['GET /internal/merchants/:merchantId/webhook-profile'],
  'test-harness': ['POST /internal/test/clock'],
};
