import type { AgentOrderActionData, CancelPaymentOrderData, OpenPayerPageData, PaymentCommandDataByType, PaymentCommandType } from '@mp/contracts-payments';
import type { PaymentOrderCommand } from '@mp/payments-domain';
import type { WireCommand } from '@mp/shared-command-handling';
import { DomainError } from '@mp/shared-util-errors';
import {
  AGENT_ID_PATTERN,
  COUNTRY_PATTERN,
  IsKnownCurrency,
  IsMetadata,
  IsMinorUnits,
  IsOrderId,
  IsPlainText,
  MatchesPattern,
  MERCHANT_ID_PATTERN,
  PAYER_PAGE_TOKEN_HASH_PATTERN,
} from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import type { EntityManager } from 'typeorm';
import type { PayerPageLinks } from '../../payer-pages/payer-page-links';
import { findOrderByPayerPageTokenHash, type PaymentOrderRow } from '../../persistence/payment-order.projection';
import type { RecipientAccountVault } from '../../recipient-accounts/recipient-account.vault';

/**
 * What every command of `payments.commands` is, one file per wire type beside this one
 * (registered in payment-commands.registry.ts): its payload class, and `resolve`, which reads
 * what the decider needs and names the domain command (paymentOrderDecider) to run on which
 * order. The intake (payment-command.intake.ts) runs it on the order's stream and replies.
 *
 * A payload that fails its class can never succeed, whatever the state: it is a poison message,
 * not a business rejection (the gateway validated the merchant's input before sending it).
 */
export type PaymentWireCommand<Type extends PaymentCommandType> = WireCommand<
  Type,
  PaymentCommandDataByType[Type],
  PaymentCommandContext,
  ResolvedPaymentCommand
>;

/** What `resolve` is given: the command's transaction, its clock reading, and the stores it may read. */
export interface PaymentCommandContext {
  manager: EntityManager;
  now: Date;
  payerPageLinks: PayerPageLinks;
  recipientAccounts: RecipientAccountVault;
}

/** Which order a command is about, and the domain command to run on it (null: nothing to decide, the reply is the order as it is). */
export interface ResolvedPaymentCommand {
  merchantId: string;
  orderId: string;
  command: PaymentOrderCommand | null;
  /**
   * The order's projection row when resolving it read it already (the payer's commands find
   * their order by token): the intake takes its open-dispute overlay from it instead of reading
   * the row a second time.
   */
  row?: PaymentOrderRow;
}

/** The fields every command about a named order carries. */
export class OrderCommandPayload implements CancelPaymentOrderData {
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id')
  merchantId!: string;

  @IsOrderId()
  orderId!: string;
}

/** The fields both creates carry. */
export class CreatePaymentPayload extends OrderCommandPayload {
  @IsMinorUnits('positive', 'currency')
  amountMinor!: string;

  @IsKnownCurrency()
  currency!: string;

  @MatchesPattern(COUNTRY_PATTERN, 'must be a two-letter country code')
  country!: string;

  @IsPlainText(2048)
  callbackUrl!: string;

  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;
}

/** The payer's commands name the order by the page's token hash, never by id. */
export class PayerPagePayload implements OpenPayerPageData {
  @MatchesPattern(PAYER_PAGE_TOKEN_HASH_PATTERN, 'must be a payer-page token hash')
  payerPageTokenHash!: string;
}

/** An agent's commands name the order and the agent. */
export class AgentOrderActionPayload extends OrderCommandPayload implements AgentOrderActionData {
  @MatchesPattern(AGENT_ID_PATTERN, 'must be an agent id')
  agentId!: string;
}

/** The order behind a payer page's token hash; an unknown page is NOT_FOUND. */
export async function payerPageOrder(manager: EntityManager, tokenHash: string): Promise<PaymentOrderRow> {
  const row = await findOrderByPayerPageTokenHash(manager, tokenHash);
  if (!row) throw new DomainError('NOT_FOUND', 'No such payment page');
  return row;
}
