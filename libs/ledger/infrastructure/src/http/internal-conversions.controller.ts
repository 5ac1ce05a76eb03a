import { Body, Controller, Headers, Inject, Param, Post, Res } from '@nestjs/common';
import type { ConversionView } from '@mp/contracts-ledger';
import { quoteConversion, type ConversionTerms } from '@mp/ledger-domain';
import { formatAmountMinor } from '@mp/shared-util-money';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { RequestPipe } from '@mp/shared-nest-http';
import { requireActor, ServiceCaller, type VerifiedCaller } from '@mp/shared-service-auth';
import { handleLedgerCommand } from '../commands/ledger.handling';
import { LEDGER_SETTINGS, type LedgerSettings } from '../ledger-settings';
import { findConversion, type ConversionRow } from '../persistence/conversion.projection';
import { lockLedger } from '../persistence/ledger.projection';
import { requestCausation } from './causation';
import { ConversionRequestDto, LedgerMerchantIdParam } from './ledger-requests';

const bodyPipe = new RequestPipe();

/**
 * Operators' conversions from one settlement currency into another (decisions.md "Crypto
 * assets and withdrawals"). Both legs commit in one transaction, so a conversion is either
 * wholly booked or not at all; the two ledgers are locked in currency order, so two
 * conversions in opposite directions cannot deadlock. Internal only: the operator is the one
 * the gateway's service token names (operator_id in the body must agree).
 */
@Controller('internal/merchants/:merchantId/conversions')
export class InternalConversionsController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(LEDGER_SETTINGS) private readonly settings: LedgerSettings,
  ) {}

  @Post()
  async convert(
    @Param('merchantId', LedgerMerchantIdParam) merchantId: string,
    @Body(bodyPipe) body: ConversionRequestDto,
    @Headers() headers: Record<string, string | undefined>,
    @Res({ passthrough: true }) reply: FastifyReply,
    @ServiceCaller() caller?: VerifiedCaller,
  ): Promise<ConversionView> {
    const operator = requireActor(caller, ['operator'], { id: body.operator_id });
    const request = {
      conversionId: body.conversion_id,
      fromCurrency: body.from_currency,
      toCurrency: body.to_currency,
      amountMinor: BigInt(body.amount_minor),
      rate: body.rate,
      reason: body.reason,
      operatorId: operator.id,
    };
    const { booked, row } = await this.dataSource.transaction(async (manager) => {
      const earlier = await findConversion(manager, merchantId, request.conversionId);
      // A repeat is answered from the trail, whatever the platform fee is today; the legs' own
      // idempotency then confirms the terms match what was booked.
      const quote = earlier
        ? { fromAmountMinor: request.amountMinor, feeMinor: BigInt(earlier.fee_minor), toAmountMinor: BigInt(earlier.to_amount_minor) }
        : quoteConversion({ fromCurrency: request.fromCurrency, toCurrency: request.toCurrency, fromAmountMinor: request.amountMinor, rate: request.rate, feeBasisPoints: this.settings.conversionFeeBasisPoints });
      const terms: ConversionTerms = { conversionId: request.conversionId, fromCurrency: request.fromCurrency, toCurrency: request.toCurrency, ...quote, rate: request.rate, operatorId: request.operatorId, reason: request.reason };
      for (const currency of [request.fromCurrency, request.toCurrency].sort()) await lockLedger(manager, merchantId, currency);
      const causation = requestCausation(headers);
      const metadata = { now: new Date() };
      const debit = await handleLedgerCommand({ manager }, merchantId, request.fromCurrency, { type: 'DebitConversion', data: terms, metadata }, causation);
      const credit = await handleLedgerCommand({ manager }, merchantId, request.toCurrency, { type: 'CreditConversion', data: terms, metadata }, causation);
      return { booked: debit.events.length + credit.events.length > 0, row: await findConversion(manager, merchantId, request.conversionId) };
    });
    if (!row) throw new Error(`conversion ${request.conversionId} missing after it was booked`);
    void reply.status(booked ? 201 : 200);
    return toConversionView(row);
  }
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
