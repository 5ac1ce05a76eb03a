import type { ServiceAccessPolicy } from '@mp/shared-service-auth';

/**
 * Who may call which route of the ledger's internal API: payments and withdrawals place holds;
 * only the gateway reads balances and entries and books an operator's deposit adjustments and
 * conversions. Derived from the callers' code.
 */
export const LEDGER_INTERNAL_ACCESS: ServiceAccessPolicy = {
  gateway: [
    'GET /internal/event-store/anchors',
    'GET /internal/merchants/:merchantId/balances',
    'GET /internal/merchants/:merchantId/balances/end-of-day',
    'POST /internal/merchants/:merchantId/deposit-adjustments',
    'GET /internal/merchants/:merchantId/entries',
    'GET /internal/merchants/:merchantId/entries-of-day',
    'GET /internal/merchants/:merchantId/ledger-anchor',
    'GET /internal/merchants/:merchantId/reconciliation.csv',
    'POST /internal/merchants/:merchantId/conversions',
    'GET /internal/approvals',
    'POST /internal/approvals/:approvalId/approve',
    'POST /internal/approvals/:approvalId/reject',
  ],
  payments: ['POST /internal/holds'],
  withdrawals: ['POST /internal/holds'],
};
