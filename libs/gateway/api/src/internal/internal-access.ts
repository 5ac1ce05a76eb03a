import type { ServiceAccessPolicy } from '@mp/shared-service-auth';

/** Who may call the gateway's internal listener: the callback dispatcher, for a merchant's webhook profile. */
export const GATEWAY_INTERNAL_ACCESS: ServiceAccessPolicy = {
  callbacks: ['GET /internal/merchants/:merchantId/webhook-profile'],
};
