import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@mp/shared-util-clock';
import type { ConversionView, DepositAdjustmentView, OperatorApprovalView } from '@mp/contracts-ledger';
import {
  approvalStatusAt,
  assertConversionWithinLimits,
  decideApproval,
  evolveApproval,
  needsSecondOperator,
  quoteConversion,
  type ApprovalCommand,
  type ApprovalKind,
  type ConversionTerms,
  type OperatorApproval,
} from '@mp/ledger-domain';
import type { Causation } from '@mp/shared-command-handling';
import { formatAmountMinor } from '@mp/shared-util-money';
import { DataSource, type EntityManager } from 'typeorm';
import { handleLedgerCommand } from '../commands/ledger.stream';
import { LEDGER_SETTINGS, type LedgerSettings } from '../ledger-settings';
import { findConversion, type ConversionRow } from '../persistence/conversion.projection';
import { findDepositAdjustment, lockLedger, type DepositAdjustmentRow } from '../persistence/ledger.projection';
import { listApprovals, lockApproval, lockApprovalOf, saveApproval } from './approval.store';

export interface ConversionInput {
  conversionId: string;
  fromCurrency: string;
  toCurrency: string;
  amountMinor: bigint;
  rate: string;
  reason: string;
  operatorId: string;
}

export interface DepositAdjustmentInput {
  adjustmentId: string;
  currency: string;
  amountMinor: bigint;
  reason: string;
  operatorId: string;
}

/** 201 booked now, 200 a repeat of a booked one, 202 recorded for a second operator's approval. */
export type OperatorMoneyAnswer<View> = { status: 200 | 201; body: View } | { status: 202; body: OperatorApprovalView };

/**
 * Every operator action that moves money (conversions, deposit adjustments) passes here, under
 * the operator limits (operator-limits.ts): a conversion outside its rate band or over its cap
 * is refused before anything is written, and an action above its currency's threshold is only
 * recorded until a second operator approves it. On approval the same booking runs, in the
 * transaction that records the approval, so the money moves exactly once.
 */
@Injectable()
export class OperatorMoneyActions {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(LEDGER_SETTINGS) private readonly settings: LedgerSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  convert(merchantId: string, request: ConversionInput, causation: Causation): Promise<OperatorMoneyAnswer<ConversionView>> {
    return this.dataSource.transaction(async (manager) => {
      // A repeat is answered from the trail, whatever the limits or the fee are today.
      if (await findConversion(manager, merchantId, request.conversionId)) return this.bookConversion(manager, merchantId, request, causation);
      this.assertConversionAllowed(request);
      const waiting = await lockApprovalOf(manager, merchantId, 'conversion', request.conversionId);
      if (waiting || needsSecondOperator(this.settings.operatorLimits, request.fromCurrency, request.amountMinor)) {
        return this.requestApproval(
          manager,
          { kind: 'conversion', merchantId, subjectId: request.conversionId, terms: conversionTermsOf(request), requestedBy: request.operatorId },
          waiting,
        );
      }
      return this.bookConversion(manager, merchantId, request, causation);
    });
  }

  adjustDeposit(merchantId: string, request: DepositAdjustmentInput, causation: Causation): Promise<OperatorMoneyAnswer<DepositAdjustmentView>> {
    return this.dataSource.transaction(async (manager) => {
      if (await findDepositAdjustment(manager, merchantId, request.currency, request.adjustmentId))
        return this.bookDepositAdjustment(manager, merchantId, request, causation);
      const waiting = await lockApprovalOf(manager, merchantId, 'deposit_adjustment', request.adjustmentId);
      if (waiting || needsSecondOperator(this.settings.operatorLimits, request.currency, request.amountMinor)) {
        const terms = { currency: request.currency, amount_minor: request.amountMinor.toString(), reason: request.reason };
        return this.requestApproval(
          manager,
          { kind: 'deposit_adjustment', merchantId, subjectId: request.adjustmentId, terms, requestedBy: request.operatorId },
          waiting,
        );
      }
      return this.bookDepositAdjustment(manager, merchantId, request, causation);
    });
  }

  /** The second operator's approval: books the request's money command with the requester as its operator. */
  approve(approvalId: string, approver: { operatorId: string; relatedOperatorIds: string[] }, causation: Causation): Promise<OperatorApprovalView> {
    return this.decide(approvalId, { type: 'ApproveRequest', data: approver, metadata: { now: this.clock.now() } }, async (manager, approval) => {
      const terms = approval.terms as Record<string, string>;
      if (approval.kind === 'conversion') {
        const request = conversionInputOf(approval.subjectId, terms, approval.requestedBy);
        // The reference rate may have moved while the request waited: the limits hold when the money moves.
        if (!(await findConversion(manager, approval.merchantId, request.conversionId))) this.assertConversionAllowed(request);
        await this.bookConversion(manager, approval.merchantId, request, causation);
      } else {
        const request = {
          adjustmentId: approval.subjectId,
          currency: terms['currency'] ?? '',
          amountMinor: BigInt(terms['amount_minor'] ?? '0'),
          reason: terms['reason'] ?? '',
          operatorId: approval.requestedBy,
        };
        await this.bookDepositAdjustment(manager, approval.merchantId, request, causation);
      }
    });
  }

  /** Any operator may reject, the requester included (to withdraw it); nothing moves. */
  reject(approvalId: string, operatorId: string, reason: string): Promise<OperatorApprovalView> {
    return this.decide(approvalId, { type: 'RejectRequest', data: { operatorId, reason }, metadata: { now: this.clock.now() } }, async () => undefined);
  }

  async list(filter: {
    status?: 'pending' | 'approved' | 'rejected' | 'expired';
    merchantId?: string;
    limit: number;
  }): Promise<{ data: OperatorApprovalView[] }> {
    const now = this.clock.now();
    const approvals = await listApprovals(this.dataSource.manager, { ...filter, now });
    return { data: approvals.map((approval) => toApprovalView(approval, now)) };
  }

  private decide(
    approvalId: string,
    command: ApprovalCommand,
    onDecided: (manager: EntityManager, approval: OperatorApproval) => Promise<void>,
  ): Promise<OperatorApprovalView> {
    return this.dataSource.transaction(async (manager) => {
      const state = await lockApproval(manager, approvalId);
      const events = decideApproval(command, state);
      const decided = events.reduce(evolveApproval, state);
      if (!decided) throw new Error(`approval ${approvalId} has no state after ${command.type}`);
      if (events.length > 0) {
        await onDecided(manager, decided);
        await saveApproval(manager, decided, false);
      }
      return toApprovalView(decided, command.metadata.now);
    });
  }

  private async requestApproval(
    manager: EntityManager,
    request: { kind: ApprovalKind; merchantId: string; subjectId: string; terms: Record<string, string>; requestedBy: string },
    waiting: OperatorApproval | null,
  ): Promise<{ status: 202; body: OperatorApprovalView }> {
    const now = this.clock.now();
    const data = {
      ...request,
      approvalId: waiting?.approvalId ?? `apr_${randomUUID()}`,
      expiresAt: new Date(now.getTime() + this.settings.operatorLimits.approvalTtlMs),
    };
    const events = decideApproval({ type: 'RequestApproval', data, metadata: { now } }, waiting);
    const approval = events.reduce(evolveApproval, waiting);
    if (!approval) throw new Error(`approval of ${request.kind} ${request.subjectId} has no state after its request`);
    if (events.length > 0) await saveApproval(manager, approval, true);
    return { status: 202, body: toApprovalView(approval, now) };
  }

  private assertConversionAllowed(request: ConversionInput): void {
    // The quote first: it reports a malformed rate or amount in detail; the limits then judge a well-formed one.
    quoteConversion({
      fromCurrency: request.fromCurrency,
      toCurrency: request.toCurrency,
      fromAmountMinor: request.amountMinor,
      rate: request.rate,
      feeBasisPoints: this.settings.conversionFeeBasisPoints,
    });
    assertConversionWithinLimits(this.settings.operatorLimits, {
      fromCurrency: request.fromCurrency,
      toCurrency: request.toCurrency,
      fromAmountMinor: request.amountMinor,
      rate: request.rate,
    });
  }

  /**
   * Both legs in the caller's transaction, the two ledgers locked in currency order so two
   * conversions in opposite directions cannot deadlock.
   */
  private async bookConversion(
    manager: EntityManager,
    merchantId: string,
    request: ConversionInput,
    causation: Causation,
  ): Promise<{ status: 200 | 201; body: ConversionView }> {
    const earlier = await findConversion(manager, merchantId, request.conversionId);
    // A repeat keeps the booked fee and amount; the legs' own idempotency then confirms the terms match what was booked.
    const quote = earlier
      ? { fromAmountMinor: request.amountMinor, feeMinor: BigInt(earlier.fee_minor), toAmountMinor: BigInt(earlier.to_amount_minor) }
      : quoteConversion({
          fromCurrency: request.fromCurrency,
          toCurrency: request.toCurrency,
          fromAmountMinor: request.amountMinor,
          rate: request.rate,
          feeBasisPoints: this.settings.conversionFeeBasisPoints,
        });
    const terms: ConversionTerms = {
      conversionId: request.conversionId,
      fromCurrency: request.fromCurrency,
      toCurrency: request.toCurrency,
      ...quote,
      rate: request.rate,
      operatorId: request.operatorId,
      reason: request.reason,
    };
    for (const currency of [request.fromCurrency, request.toCurrency].sort()) await lockLedger(manager, merchantId, currency);
    const metadata = { now: this.clock.now() };
    const debit = await handleLedgerCommand({ manager }, merchantId, request.fromCurrency, { type: 'DebitConversion', data: terms, metadata }, causation);
    const credit = await handleLedgerCommand({ manager }, merchantId, request.toCurrency, { type: 'CreditConversion', data: terms, metadata }, causation);
    const row = await findConversion(manager, merchantId, request.conversionId);
    if (!row) throw new Error(`conversion ${request.conversionId} missing after it was booked`);
    return { status: debit.events.length + credit.events.length > 0 ? 201 : 200, body: toConversionView(row) };
  }

  private async bookDepositAdjustment(
    manager: EntityManager,
    merchantId: string,
    request: DepositAdjustmentInput,
    causation: Causation,
  ): Promise<{ status: 200 | 201; body: DepositAdjustmentView }> {
    const { adjustmentId, amountMinor, reason, operatorId } = request;
    const result = await handleLedgerCommand(
      { manager },
      merchantId,
      request.currency,
      { type: 'AdjustDeposit', data: { adjustmentId, amountMinor, reason, operatorId }, metadata: { now: this.clock.now() } },
      causation,
    );
    const row = await findDepositAdjustment(manager, merchantId, request.currency, adjustmentId);
    if (!row) throw new Error(`deposit adjustment ${adjustmentId} missing after it was booked`);
    return { status: result.events.length > 0 ? 201 : 200, body: toAdjustmentView(row) };
  }
}

function conversionTermsOf(request: ConversionInput): Record<string, string> {
  return {
    from_currency: request.fromCurrency,
    to_currency: request.toCurrency,
    amount_minor: request.amountMinor.toString(),
    rate: request.rate,
    reason: request.reason,
  };
}

function conversionInputOf(conversionId: string, terms: Record<string, string>, operatorId: string): ConversionInput {
  const field = (name: string) => {
    const value = terms[name];
    if (value === undefined) throw new Error(`approval of conversion ${conversionId} lacks ${name}`);
    return value;
  };
  return {
    conversionId,
    fromCurrency: field('from_currency'),
    toCurrency: field('to_currency'),
    amountMinor: BigInt(field('amount_minor')),
    rate: field('rate'),
    reason: field('reason'),
    operatorId,
  };
}

function toApprovalView(approval: OperatorApproval, now: Date): OperatorApprovalView {
  return {
    approval_id: approval.approvalId,
    kind: approval.kind,
    merchant_id: approval.merchantId,
    subject_id: approval.subjectId,
    status: approvalStatusAt(approval, now),
    terms: { ...approval.terms },
    requested_by: approval.requestedBy,
    requested_at: approval.requestedAt.toISOString(),
    expires_at: approval.expiresAt.toISOString(),
    decided_by: approval.decidedBy,
    decided_at: approval.decidedAt?.toISOString() ?? null,
    decision_reason: approval.decisionReason,
  };
}

function toConversionView(row: ConversionRow): ConversionView {
  return {
    conversion_id: row.conversion_id,
    merchant_id: row.merchant_id,
    from_currency: row.from_currency,
    to_currency: row.to_currency,
    from_amount: formatAmountMinor(BigInt(row.from_amount_minor), row.from_currency),
    fee: formatAmountMinor(BigInt(row.fee_minor), row.from_currency),
    to_amount: formatAmountMinor(BigInt(row.to_amount_minor), row.to_currency),
    rate: row.rate,
    reason: row.reason,
    operator_id: row.operator_id,
    recorded_at: new Date(row.recorded_at).toISOString(),
  };
}

function toAdjustmentView(row: DepositAdjustmentRow): DepositAdjustmentView {
  return {
    adjustment_id: row.adjustment_id,
    merchant_id: row.merchant_id,
    currency: row.currency,
    amount_minor: row.amount_minor,
    amount: formatAmountMinor(BigInt(row.amount_minor), row.currency),
    reason: row.reason,
    operator_id: row.operator_id,
    event_id: row.event_id,
    recorded_at: new Date(row.recorded_at).toISOString(),
    deposit: { currency: row.currency, available: formatAmountMinor(BigInt(row.deposit_after), row.currency) },
  };
}
