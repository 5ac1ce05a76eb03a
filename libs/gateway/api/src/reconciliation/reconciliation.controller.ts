import { Readable } from 'node:stream';
import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse } from '@nestjs/swagger';
import type { Clock } from '@mp/shared-util-clock';
import { validationError } from '@mp/shared-util-errors';
import type { FastifyReply } from 'fastify';
import type { AccountBalancesInMinorUnits } from '@mp/contracts-ledger';
import { CurrentMerchant, type AuthenticatedMerchant } from '../auth/merchant-signature.guard';
import { ApiErrorResponses } from '../openapi/error.response';
import { MerchantApi } from '../openapi/merchant-api.decorator';
import { CLOCK } from '../gateway-settings';
import { LedgerReadClient } from '../merchant/ledger-read.client';
import { PaymentsClient } from '../payments/payments.client';
import { WithdrawalsReadClient } from '../withdrawals/withdrawals-read.client';
import { absentOrNull, minorUnitsOf, reconciliationReport, type ReconciliationSources, type ReportOrder } from './reconciliation-report';
import { ReconciliationQuery } from './reconciliation.request';

/**
 * The anchor of the merchant's own ledger entries in the currency at the end of the day: the
 * version and hash of the last one (each hash chained over every earlier entry's), absent when
 * there is none yet. Once the day is closed the ledger's daily anchor of that day lists the same.
 */
export const LEDGER_ANCHOR_HEADER = 'x-ledger-anchor';

/**
 * The merchant's own balances in the currency at the start and at the end of the day,
 * `available=N; frozen=N; deposit=N` in minor units (the accounts the CSV's `*_change_minor`
 * columns move): the ledger's end-of-day balances, the function the back office reads them from
 * (balancesAsOf), so the two always agree. The day's changes add up from one to the other.
 */
export const OPENING_BALANCE_HEADER = 'x-opening-balance';
export const CLOSING_BALANCE_HEADER = 'x-closing-balance';

const BALANCE_HEADER_DESCRIPTION =
  'in minor units, `available=N; frozen=N; deposit=N`: your settlement available, settlement frozen and deposit balances in the currency, from the same ledger postings as the rows. Opening plus the sum of each `*_change_minor` column is closing.';

/** A balances header's value: the merchant's three accounts of one end-of-day view's side. */
export function balanceHeader(balances: AccountBalancesInMinorUnits | undefined): string {
  return `available=${balances?.settlement_available ?? '0'}; frozen=${balances?.settlement_frozen ?? '0'}; deposit=${balances?.deposit ?? '0'}`;
}

/** The merchant's day of money movements as CSV (docs/api/endpoints.md, "Reconciliation report"). */
@Controller('v2/merchant')
@MerchantApi('Merchant')
export class ReconciliationController {
  constructor(
    private readonly ledger: LedgerReadClient,
    private readonly payments: PaymentsClient,
    private readonly withdrawals: WithdrawalsReadClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('reconciliation')
  @ApiOperation({ operationId: 'getReconciliationReport', summary: "One UTC day's ledger entries in one currency, each with its order, as CSV" })
  @ApiProduces('text/csv')
  @ApiResponse({
    status: 200,
    description:
      'A header row, then one row per ledger entry, oldest first. A date that is not a calendar day YYYY-MM-DD or is after today (UTC), or a currency that is not a currency code, is 400 VALIDATION_ERROR.',
    content: { 'text/csv': { schema: { type: 'string' } } },
    headers: {
      'X-Ledger-Anchor': {
        description:
          'The anchor of the merchant’s own ledger entries in the currency at the end of the day, `version=N; sha256=HEX`: the last entry’s event version and hash, chained over every earlier one. Absent when there are none yet.',
        schema: { type: 'string' },
      },
      'X-Opening-Balance': { description: `The balances at the start of the day (00:00 UTC), ${BALANCE_HEADER_DESCRIPTION}`, schema: { type: 'string' } },
      'X-Closing-Balance': {
        description: `The balances at the end of the day (24:00 UTC; for today, so far), ${BALANCE_HEADER_DESCRIPTION}`,
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrorResponses()
  async report(@CurrentMerchant() merchant: AuthenticatedMerchant, @Query() query: ReconciliationQuery, @Res() reply: FastifyReply): Promise<void> {
    // A day still to come has no entries and never will today: refused, so a wrong date is not mistaken for a quiet one.
    if (query.date > this.clock.now().toISOString().slice(0, 10))
      throw validationError([{ field: 'date', issue: 'must not be after today (UTC)' }], 'The reconciliation query is not valid');
    const sources = this.sourcesFor(merchant.merchantId, query);
    const [firstPage, { anchor }, endOfDay] = await Promise.all([
      sources.entriesOfDay(undefined),
      this.ledger.ledgerAnchor(merchant.merchantId, query),
      this.ledger.getEndOfDayBalances(merchant.merchantId, query.date),
    ]);
    if (anchor) void reply.header(LEDGER_ANCHOR_HEADER, `version=${anchor.stream_version}; sha256=${anchor.hash}`);
    const day = endOfDay.currencies.find(({ currency }) => currency === query.currency);
    void reply.header(OPENING_BALANCE_HEADER, balanceHeader(day?.opening)).header(CLOSING_BALANCE_HEADER, balanceHeader(day?.closing));
    await reply
      .status(200)
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="reconciliation-${query.date}-${query.currency}.csv"`)
      .send(Readable.from(reconciliationReport(sources, firstPage)));
  }

  private sourcesFor(merchantId: string, { date, currency }: ReconciliationQuery): ReconciliationSources {
    return {
      entriesOfDay: (cursor) => this.ledger.entriesOfDay(merchantId, { date, currency, ...(cursor ? { cursor } : {}) }),
      orderOf: async (reference): Promise<ReportOrder | null> => {
        if (reference.kind === 'payment_order') {
          const order = await this.payments.getOrder(merchantId, reference.id).catch((error: unknown) => absentOrNull(error, ['ORDER_NOT_FOUND']));
          return (
            order && {
              direction: order.direction,
              status: order.status,
              amountMinor: minorUnitsOf(order.amount, currency),
              feeMinor: minorUnitsOf(order.fee, currency),
              metadata: order.metadata,
            }
          );
        }
        if (reference.kind === 'withdrawal') {
          const withdrawal = await this.withdrawals
            .getWithdrawal(merchantId, reference.id)
            .catch((error: unknown) => absentOrNull(error, ['WITHDRAWAL_NOT_FOUND']));
          return (
            withdrawal && {
              direction: 'withdrawal',
              status: withdrawal.status,
              amountMinor: minorUnitsOf(withdrawal.amount, currency),
              feeMinor: minorUnitsOf(withdrawal.network_fee, currency),
              metadata: withdrawal.metadata,
            }
          );
        }
        // Deposit adjustments and conversions are the operators' bookings, not orders.
        return null;
      },
    };
  }
}
