// Wire command OpenDispute → domain command OpenDispute (disputeDecider); an open dispute's reopen is the same command.
import { randomBytes } from 'node:crypto';
import { DISPUTE_COMMENT_MAX_LENGTH, type OpenDisputeCommandData } from '@mp/contracts-disputes';
import type { DisputeReceiptRef } from '@mp/disputes-domain';
import { DomainError } from '@mp/shared-util-errors';
import { parseAmountLiteral } from '@mp/shared-util-money';
import { IsMetadata, IsOrderId, IsPlainText, MatchesPattern, MERCHANT_ID_PATTERN, RECEIPT_ID_PATTERN } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import type { EntityManager } from 'typeorm';
import { findOrderFacts } from '../../orders/dispute-orders.store';
import { claimDisputeReceipt } from '../../receipts/dispute-receipts.store';
import type { DisputeWireCommand } from './dispute-wire-command';

export class OpenDisputePayload implements OpenDisputeCommandData {
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id')
  merchantId!: string;

  @IsOrderId()
  orderId!: string;

  @IsOptional()
  @MatchesPattern(/^(0|[1-9]\d{0,17})(\.\d{1,8})?$/, 'must be a decimal amount')
  amount!: string | null;

  @IsOptional()
  @IsPlainText(DISPUTE_COMMENT_MAX_LENGTH)
  comment!: string | null;

  @IsOptional()
  @MatchesPattern(RECEIPT_ID_PATTERN, 'must be a receipt id')
  receiptId!: string | null;

  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;
}

/**
 * A merchant disputes a pay-in: the order's facts as disputes learnt them, the amount in the
 * order's currency, and the receipt the gateway stored, claimed for this open (the intake
 * deletes it if the open is refused). Amount and receipt are looked at only for an incoming
 * order, so an outgoing or unknown order is answered by the decider's one ORDER_NOT_FOUND
 * whatever else the body holds.
 */
export const openDispute: DisputeWireCommand<'OpenDispute'> = {
  type: 'OpenDispute',
  payload: OpenDisputePayload,
  async resolve({ manager, now, reviewWindowHours }, { merchantId, orderId, amount, comment, receiptId, metadata }) {
    const order = await findOrderFacts(manager, merchantId, orderId);
    const incoming = order?.direction === 'incoming';
    const amountMinor = incoming && amount !== null ? amountInCurrency(amount, order.currency) : null;
    const receipt = incoming && receiptId !== null ? await claimedReceipt(manager, merchantId, receiptId) : null;
    return {
      merchantId,
      orderId,
      command: {
        type: 'OpenDispute',
        data: { merchantId, orderId, amountMinor, comment, receipt, metadata: metadata ?? null },
        metadata: { now, order, newDisputeId: newDisputeId(), reviewWindowHours },
      },
    };
  },
};

function amountInCurrency(amount: string, currency: string): bigint {
  const parsed = parseAmountLiteral(amount, currency);
  if (!parsed.ok) {
    const issue =
      parsed.reason === 'too_many_decimals'
        ? `has more decimals than ${currency} allows`
        : parsed.reason === 'too_large'
          ? 'is too large'
          : 'must be greater than 0';
    throw new DomainError('VALIDATION_ERROR', 'The dispute is not valid', [{ field: 'amount', issue }]);
  }
  return parsed.amountMinor;
}

async function claimedReceipt(manager: EntityManager, merchantId: string, receiptId: string): Promise<DisputeReceiptRef> {
  const receipt = await claimDisputeReceipt(manager, merchantId, receiptId);
  if (!receipt) throw new DomainError('VALIDATION_ERROR', 'The receipt was not stored for this merchant', [{ field: 'receipt', issue: 'unknown receipt' }]);
  return receipt;
}

function newDisputeId(): string {
  return `dsp_${randomBytes(12).toString('hex')}`;
}
