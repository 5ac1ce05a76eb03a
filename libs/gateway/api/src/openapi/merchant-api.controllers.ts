import { MerchantWebhooksController } from '../callbacks/merchant-webhooks.controller';
import { DisputesController } from '../disputes/disputes.controller';
import { MerchantController } from '../merchant/merchant.controller';
import { MerchantSecretsController } from '../merchant/merchant-secrets.controller';
import { PaymentsController } from '../payments/payments.controller';
import { ReconciliationController } from '../reconciliation/reconciliation.controller';
import { WithdrawalsController } from '../withdrawals/withdrawals.controller';

/**
 * The controllers of the signed merchant API (/v2): what the OpenAPI description documents.
 * A new /v2 controller goes here, and so into both the gateway and openapi.json.
 */
export const MERCHANT_API_CONTROLLERS = [
  PaymentsController,
  DisputesController,
  MerchantController,
  WithdrawalsController,
  MerchantSecretsController,
  ReconciliationController,
  MerchantWebhooksController,
];
