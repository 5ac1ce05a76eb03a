import { DEFAULT_PAGE_LIMIT } from '@mp/shared-data-access-postgres';
import { Readable } from 'node:stream';
import { Body, Controller, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import type {
  BalancesView,
  DepositAdjustmentView,
  EndOfDayBalancesView,
  LedgerAnchorView,
  LedgerEntriesPage,
  OperatorApprovalView,
} from '@mp/contracts-ledger';
import { toLedgerStreamId } from '@mp/ledger-domain';
import { streamHeadBefore } from '@mp/shared-messaging';
import { RequestPipe } from '@mp/shared-nest-http';
import { ServiceCaller, type VerifiedCaller } from '@mp/shared-service-auth';
import { formatAmountMinor } from '@mp/shared-util-money';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import { OperatorMoneyActions } from '../approvals/operator-money.service';
import { findMerchantBalances } from '../persistence/ledger.projection';
import { actingOperatorOf } from './acting-operator';
import { entriesOfDay, listEntries, postingsOfPeriod } from '../reads/ledger-entries.query';
import { reconciliationHeader, reconciliationRecord } from '../reads/reconciliation-csv';
import { requestCausation } from './causation';
import { endOfDayBalances } from '../reads/balances-as-of';
import {
  DayEntriesQueryDto,
  DepositAdjustmentRequestDto,
  EndOfDayQueryDto,
  LedgerAnchorQueryDto,
  LedgerEntriesQueryDto,
  LedgerMerchantIdParam,
  ReconciliationQueryDto,
} from './ledger-requests';

const requestPipe = new RequestPipe();
const DAY_ENTRIES_PAGE_LIMIT = 500;

/**
 * A merchant's money, for the gateway (balances for the merchant, adjustments, statements and
 * exports for operators). Internal only: service tokens and LEDGER_INTERNAL_ACCESS decide who calls.
 */
@Controller('internal/merchants/:merchantId')
export class InternalMerchantLedgerController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly actions: OperatorMoneyActions,
  ) {}

  /** Endpoint 9's body: one entry per currency the merchant holds, amounts in the currency's scale. */
  @Get('balances')
  async balances(@Param('merchantId', LedgerMerchantIdParam) merchantId: string): Promise<BalancesView> {
    const rows = await findMerchantBalances(this.dataSource.manager, merchantId);
    return {
      settlement: rows
        .filter((row) => row.has_settlement)
        .map((row) => ({
          currency: row.currency,
          available: formatAmountMinor(BigInt(row.settlement_available), row.currency),
          frozen: formatAmountMinor(BigInt(row.settlement_frozen), row.currency),
        })),
      deposit: rows
        .filter((row) => row.has_deposit)
        .map((row) => ({ currency: row.currency, available: formatAmountMinor(BigInt(row.deposit), row.currency) })),
    };
  }

  /** Back office: the balances at the start and the end of one UTC day, from the postings (balancesAsOf). */
  @Get('balances/end-of-day')
  async balancesAtEndOfDay(
    @Param('merchantId', LedgerMerchantIdParam) merchantId: string,
    @Query(requestPipe) query: EndOfDayQueryDto,
  ): Promise<EndOfDayBalancesView> {
    return endOfDayBalances(this.dataSource.manager, merchantId, query.date);
  }

  /**
   * The only way the deposit moves: an operator's top-up (positive) or deduction (negative),
   * with a reason, idempotent by adjustment_id. 201 when booked now, 200 for a repeat (the
   * original booking is returned), 202 with a request for a second operator when the amount is
   * above the currency's approval threshold; 400 INSUFFICIENT_FUNDS when a deduction exceeds
   * the deposit.
   */
  @Post('deposit-adjustments')
  async adjustDeposit(
    @Param('merchantId', LedgerMerchantIdParam) merchantId: string,
    @Body(requestPipe) body: DepositAdjustmentRequestDto,
    @Headers() headers: Record<string, string | undefined>,
    @Res({ passthrough: true }) reply: FastifyReply,
    @ServiceCaller() caller?: VerifiedCaller,
  ): Promise<DepositAdjustmentView | OperatorApprovalView> {
    const request = {
      adjustmentId: body.adjustment_id,
      currency: body.currency,
      amountMinor: BigInt(body.amount_minor),
      reason: body.reason,
      operatorId: actingOperatorOf({ caller, body }),
    };
    const answer = await this.actions.adjustDeposit(merchantId, request, requestCausation(headers));
    void reply.status(answer.status);
    return answer.body;
  }

  /** The merchant's postings, newest first, each with the order, withdrawal or adjustment it belongs to. */
  @Get('entries')
  async entries(@Param('merchantId', LedgerMerchantIdParam) merchantId: string, @Query(requestPipe) query: LedgerEntriesQueryDto): Promise<LedgerEntriesPage> {
    return listEntries(this.dataSource.manager, {
      merchantId,
      currency: query.currency,
      from: query.from === undefined ? undefined : new Date(query.from),
      to: query.to === undefined ? undefined : new Date(query.to),
      limit: query.limit === undefined ? DEFAULT_PAGE_LIMIT : Number(query.limit),
      cursor: query.cursor,
    });
  }

  /** One UTC day of one currency, oldest first, paged; what the merchant's reconciliation report is made of. */
  @Get('entries-of-day')
  async entriesOfDay(
    @Param('merchantId', LedgerMerchantIdParam) merchantId: string,
    @Query(requestPipe) query: DayEntriesQueryDto,
  ): Promise<LedgerEntriesPage> {
    return entriesOfDay(this.dataSource.manager, {
      merchantId,
      currency: query.currency,
      day: query.date,
      limit: query.limit === undefined ? DAY_ENTRIES_PAGE_LIMIT : Number(query.limit),
      cursor: query.cursor,
    });
  }

  /** The head of the merchant's ledger stream in the currency at the end of the UTC day: the reconciliation report's anchor. */
  @Get('ledger-anchor')
  async ledgerAnchor(
    @Param('merchantId', LedgerMerchantIdParam) merchantId: string,
    @Query(requestPipe) query: LedgerAnchorQueryDto,
  ): Promise<LedgerAnchorView> {
    const streamId = toLedgerStreamId(merchantId, query.currency);
    const head = await streamHeadBefore(this.dataSource.manager, streamId, new Date(Date.parse(`${query.date}T00:00:00Z`) + 86_400_000));
    return { anchor: head && { stream_id: streamId, stream_version: head.streamVersion, hash: head.hash } };
  }

  /**
   * Reconciliation export: the merchant's postings recorded in [from, to), oldest first, as
   * RFC 4180 CSV with a header row. Both bounds are required; `currency` narrows it.
   */
  @Get('reconciliation.csv')
  async reconciliation(
    @Param('merchantId', LedgerMerchantIdParam) merchantId: string,
    @Query(requestPipe) query: ReconciliationQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const [from, to] = [new Date(query.from), new Date(query.to)];
    const rows = postingsOfPeriod(this.dataSource.manager, { merchantId, currency: query.currency, from, to });
    async function* csv(): AsyncGenerator<string> {
      yield reconciliationHeader();
      for await (const row of rows) yield reconciliationRecord(row);
    }
    const fileName = `ledger-${merchantId.replace(/[^A-Za-z0-9._-]/g, '_')}-${from.toISOString().slice(0, 10)}-${to.toISOString().slice(0, 10)}.csv`;
    await reply
      .status(200)
      .header('content-type', 'text/csv; charset=utf-8; header=present')
      .header('content-disposition', `attachment; filename="${fileName}"`)
      .send(Readable.from(csv()));
  }
}
