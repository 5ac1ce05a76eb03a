import type { RouteDefinition } from '../../app/routes';
import { AgentsView } from './agents';
import { OperatorDisputeView } from './dispute';
import { OperatorDisputesView } from './disputes';
import { HealthView } from './health';
import { OperatorMerchantView } from './merchant';
import { MerchantsView } from './merchants';
import { MoneyView } from './money';
import { OperatorOrderView } from './order';
import { DISPUTE_PAGE, MERCHANT_PAGE, ORDER_PAGE } from './paths';
import { OperatorWithdrawalsView } from './withdrawals';

/** The operator's views, one file each. */
export const operatorRoutes: RouteDefinition[] = [
  { pattern: '/operator/merchants', navLabel: 'Merchants', render: () => <MerchantsView /> },
  { pattern: MERCHANT_PAGE, render: (params) => <OperatorMerchantView key={params['merchantId']} merchantId={params['merchantId'] ?? ''} /> },
  { pattern: '/operator/agents', navLabel: 'Agents', render: () => <AgentsView /> },
  { pattern: '/operator/disputes', navLabel: 'Disputes', render: () => <OperatorDisputesView /> },
  {
    pattern: DISPUTE_PAGE,
    render: (params) => (
      <OperatorDisputeView
        key={`${params['merchantId']}/${params['disputeId']}`}
        merchantId={params['merchantId'] ?? ''}
        disputeId={params['disputeId'] ?? ''}
      />
    ),
  },
  {
    pattern: ORDER_PAGE,
    render: (params) => (
      <OperatorOrderView key={`${params['merchantId']}/${params['orderId']}`} merchantId={params['merchantId'] ?? ''} orderId={params['orderId'] ?? ''} />
    ),
  },
  { pattern: '/operator/money', navLabel: 'Money', render: () => <MoneyView /> },
  { pattern: '/operator/withdrawals', navLabel: 'Withdrawals', render: () => <OperatorWithdrawalsView /> },
  { pattern: '/operator/health', navLabel: 'Health', render: () => <HealthView /> },
];
