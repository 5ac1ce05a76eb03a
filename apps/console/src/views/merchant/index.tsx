import type { RouteDefinition } from '../../app/routes';
import { BalancesView } from './balances';
import { CredentialsView } from './credentials';
import { DisputesView } from './disputes';
import { OrderView } from './order';
import { OrdersView } from './orders';
import { ORDER_PAGE } from './paths';
import { ReportsView } from './reports';
import { WebhooksView } from './webhooks';
import { WithdrawalsView } from './withdrawals';

/** The merchant's views, one file each; the shell's Live/Test switch points them all at the sandbox merchant. */
export const merchantRoutes: RouteDefinition[] = [
  { pattern: '/merchant/balances', navLabel: 'Balances', render: () => <BalancesView /> },
  { pattern: '/merchant/orders', navLabel: 'Orders', render: () => <OrdersView /> },
  { pattern: ORDER_PAGE, render: (params) => <OrderView key={params['orderId']} orderId={params['orderId'] ?? ''} /> },
  { pattern: '/merchant/disputes', navLabel: 'Disputes', render: () => <DisputesView /> },
  { pattern: '/merchant/withdrawals', navLabel: 'Withdrawals', render: () => <WithdrawalsView /> },
  { pattern: '/merchant/webhooks', navLabel: 'Webhooks', render: () => <WebhooksView /> },
  { pattern: '/merchant/reports', navLabel: 'Reports', render: () => <ReportsView /> },
  { pattern: '/merchant/credentials', navLabel: 'Credentials', render: () => <CredentialsView /> },
];
