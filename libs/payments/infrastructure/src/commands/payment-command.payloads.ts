import type {
  AgentCompletePayoutData,
  AgentDeclineOrderData,
  AgentOrderActionData,
  CancelPaymentOrderData,
  CreateIncomingPaymentData,
  CreateOutgoingPaymentData,
  OpenPayerPageData,
  PayerLinkRequest,
  PaymentCommandType,
} from '@mp/contracts-payments';
import { PROCESS_PUBLIC_KEY_PATTERN } from '@mp/shared-util-secret-box';
import { IsOptional } from 'class-validator';
import {
  AGENT_ID_PATTERN,
  COUNTRY_PATTERN,
  IsKnownCurrency,
  IsMinorUnits,
  IsOrderId,
  IsPlainText,
  MatchesPattern,
  MERCHANT_ID_PATTERN,
  METHOD_PATTERN,
  PAYER_PAGE_TOKEN_HASH_PATTERN,
  RECEIPT_ID_PATTERN,
  RECIPIENT_ACCOUNT_REF_PATTERN,
} from '@mp/shared-util-validation';

/**
 * The payload of each command on `payments.commands`, as request classes. A payload that fails
 * its class can never succeed, whatever the state: it is a poison message, not a business
 * rejection (the gateway validated the merchant's input before sending it).
 */

class OrderCommandPayload implements CancelPaymentOrderData {
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id')
  merchantId!: string;

  @IsOrderId()
  orderId!: string;
}

class CreatePaymentPayload extends OrderCommandPayload {
  @IsMinorUnits('positive', 'currency')
  amountMinor!: string;

  @IsKnownCurrency()
  currency!: string;

  @MatchesPattern(COUNTRY_PATTERN, 'must be a two-letter country code')
  country!: string;

  @IsPlainText(2048)
  callbackUrl!: string;
}

export class CreateIncomingPaymentPayload extends CreatePaymentPayload implements CreateIncomingPaymentData {
  @IsOptional()
  @MatchesPattern(METHOD_PATTERN, 'must be a method, e.g. sbp')
  method?: string;

  @IsOptional()
  @MatchesPattern(PROCESS_PUBLIC_KEY_PATTERN, 'must be an X25519 public key')
  payerLinkKey?: string;
}

export class CreateOutgoingPaymentPayload extends CreatePaymentPayload implements CreateOutgoingPaymentData {
  @MatchesPattern(METHOD_PATTERN, 'must be a method, e.g. bank_card')
  method!: string;

  @MatchesPattern(RECIPIENT_ACCOUNT_REF_PATTERN, 'must be a recipient account reference')
  recipientAccountRef!: string;
}

export class CancelPaymentOrderPayload extends OrderCommandPayload implements PayerLinkRequest {
  @IsOptional()
  @MatchesPattern(PROCESS_PUBLIC_KEY_PATTERN, 'must be an X25519 public key')
  payerLinkKey?: string;
}

export class PayerPagePayload implements OpenPayerPageData {
  @MatchesPattern(PAYER_PAGE_TOKEN_HASH_PATTERN, 'must be a payer-page token hash')
  payerPageTokenHash!: string;
}

export class AgentOrderActionPayload extends OrderCommandPayload implements AgentOrderActionData {
  @MatchesPattern(AGENT_ID_PATTERN, 'must be an agent id')
  agentId!: string;
}

export class AgentDeclineOrderPayload extends AgentOrderActionPayload implements AgentDeclineOrderData {
  @IsPlainText(500)
  reason!: string;
}

export class AgentCompletePayoutPayload extends AgentOrderActionPayload implements AgentCompletePayoutData {
  @MatchesPattern(RECEIPT_ID_PATTERN, 'must be a receipt id')
  receiptId!: string;
}

export const PAYMENT_COMMAND_PAYLOADS: Record<PaymentCommandType, new () => object> = {
  CreateIncomingPayment: CreateIncomingPaymentPayload,
  CreateOutgoingPayment: CreateOutgoingPaymentPayload,
  CancelPaymentOrder: CancelPaymentOrderPayload,
  OpenPayerPage: PayerPagePayload,
  MarkPaidByPayer: PayerPagePayload,
  AgentTakeOrder: AgentOrderActionPayload,
  AgentConfirmPayIn: AgentOrderActionPayload,
  AgentDeclineOrder: AgentDeclineOrderPayload,
  AgentCompletePayout: AgentCompletePayoutPayload,
};
