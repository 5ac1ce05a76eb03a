import { PAYMENT_COMMAND_SCHEMA_VERSION, PAYMENT_COMMAND_TYPES, type PaymentCommandType } from '@mp/contracts-payments';
import { commandRegistry } from '@mp/shared-command-handling';
import { agentCompletePayout } from './agent-complete-payout';
import { agentConfirmPayIn } from './agent-confirm-pay-in';
import { agentDeclineOrder } from './agent-decline-order';
import { agentTakeOrder } from './agent-take-order';
import { cancelPaymentOrder } from './cancel-payment-order';
import { createIncomingPayment } from './create-incoming-payment';
import { createOutgoingPayment } from './create-outgoing-payment';
import { markPaidByPayer } from './mark-paid-by-payer';
import { openPayerPage } from './open-payer-page';
import type { PaymentCommandContext, ResolvedPaymentCommand } from './payment-wire-command';

/** `payments.commands`: each wire type → its file. A type without a file, or a file twice, does not compile or boot. */
export const PAYMENT_COMMANDS = commandRegistry<PaymentCommandType, PaymentCommandContext, ResolvedPaymentCommand>(
  PAYMENT_COMMAND_SCHEMA_VERSION,
  PAYMENT_COMMAND_TYPES,
  {
    CreateIncomingPayment: createIncomingPayment,
    CreateOutgoingPayment: createOutgoingPayment,
    CancelPaymentOrder: cancelPaymentOrder,
    OpenPayerPage: openPayerPage,
    MarkPaidByPayer: markPaidByPayer,
    AgentTakeOrder: agentTakeOrder,
    AgentConfirmPayIn: agentConfirmPayIn,
    AgentDeclineOrder: agentDeclineOrder,
    AgentCompletePayout: agentCompletePayout,
  },
);
