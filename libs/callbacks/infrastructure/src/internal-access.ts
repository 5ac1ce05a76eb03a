import type { ServiceAccessPolicy } from '@mp/shared-service-auth';

/** Who may call which route of the callback dispatcher's internal API (derived from the callers' code). */
export const CALLBACKS_INTERNAL_ACCESS: ServiceAccessPolicy = {
  gateway: [
    'GET /internal/deliveries',
    'GET /internal/event-store/anchors',
    'POST /internal/deliveries/:deliveryId/redeliver',
    'GET /internal/endpoints/disabled',
    'POST /internal/endpoints/enable',
    'GET /internal/merchants/:merchantId/deliveries',
    'GET /internal/merchants/:merchantId/deliveries/:deliveryId',
    'POST /internal/merchants/:merchantId/deliveries/:deliveryId/redeliver',
    'POST /internal/merchants/:merchantId/test-deliveries',
    'POST /internal/merchants/:merchantId/default-callback-url',
  ],
  // One delivery by id is read by tests only; no service calls it.
  'test-harness': ['GET /internal/deliveries/:deliveryId', 'POST /internal/test/clock'],
};
