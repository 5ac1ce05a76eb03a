import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { assertNoHoldPlacementInProgress } from '@mp/ledger-client';
import {
  withdrawalHoldId,
  StuckWithdrawalsQueryDto,
  WithdrawalListQueryDto,
  type BackofficeWithdrawalView,
  type StuckWithdrawalsView,
  type WithdrawalAssetsView,
  type WithdrawalListPage,
  type WithdrawalView,
} from '@mp/contracts-withdrawals';
import { aggregateStreamAsOf, stateAsOfView, type StateAsOfView } from '@mp/shared-command-handling';
import { AsOfQueryDto, MerchantIdParam, PathIdPipe, RequestPipe } from '@mp/shared-nest-http';
import { toWithdrawalStreamId, withdrawalDecider } from '@mp/withdrawals-domain';
import { pageFilterOf } from '@mp/shared-data-access-postgres';
import { DomainError } from '@mp/shared-util-errors';
import { MERCHANT_ID_PATTERN, ORDER_ID_PATTERN } from '@mp/shared-util-validation';
import { formatAmountMinor } from '@mp/shared-util-money';
import { DataSource } from 'typeorm';
import { withdrawalEvents } from '../commands/withdrawal.stream';
import { findWithdrawal, listStuckWithdrawals, listWithdrawals, rowToBackofficeView, rowToView, withdrawalToView } from '../persistence/withdrawal.projection';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from '../withdrawals-settings';

const queryPipe = new RequestPipe();
/** Ids that cannot name a withdrawal are answered like a missing one, without a query. */
const WithdrawalMerchantIdParam = new PathIdPipe(MERCHANT_ID_PATTERN, 'WITHDRAWAL_NOT_FOUND', (id) => `No withdrawal of merchant ${id}`);
const WithdrawalOrderIdParam = new PathIdPipe(ORDER_ID_PATTERN, 'WITHDRAWAL_NOT_FOUND', (id) => `No withdrawal ${id}`);

/**
 * Reads for the gateway, from the projection. Internal only: the gateway authenticated the
 * merchant (or operator) and checked the filters; a malformed query is still refused here.
 */
@Controller('internal')
export class InternalWithdrawalsController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(WITHDRAWALS_SETTINGS) private readonly settings: WithdrawalsSettings,
  ) {}

  /** Another merchant's withdrawal is not found, exactly like a missing one. */
  @Get('merchants/:merchantId/withdrawals/:orderId')
  async getWithdrawal(
    @Param('merchantId', WithdrawalMerchantIdParam) merchantId: string,
    @Param('orderId', WithdrawalOrderIdParam) orderId: string,
  ): Promise<WithdrawalView> {
    const row = await findWithdrawal(this.dataSource.manager, merchantId, orderId);
    if (row) return rowToView(row);
    // The ledger's orphan-hold sweep asks this; a withdrawal whose create placed its hold and
    // has not committed yet is no orphan (lockHoldPlacement).
    await assertNoHoldPlacementInProgress(this.dataSource.manager, withdrawalHoldId(merchantId, orderId), 'withdrawal');
    throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
  }

  /** Operators: the withdrawal with where the sender stands and any reconciliation's evidence. */
  @Get('withdrawals/:merchantId/:orderId')
  async getForOperator(
    @Param('merchantId', WithdrawalMerchantIdParam) merchantId: string,
    @Param('orderId', WithdrawalOrderIdParam) orderId: string,
  ): Promise<BackofficeWithdrawalView> {
    const row = await findWithdrawal(this.dataSource.manager, merchantId, orderId);
    if (!row) throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
    return rowToBackofficeView(row);
  }

  /** Operators: the withdrawal as it stood at `at`, folded from its stream (docs/operations/as-of-reads.md). */
  @Get('withdrawals/:merchantId/:orderId/as-of')
  async getAsOf(
    @Param('merchantId', WithdrawalMerchantIdParam) merchantId: string,
    @Param('orderId', WithdrawalOrderIdParam) orderId: string,
    @Query(queryPipe) query: AsOfQueryDto,
  ): Promise<StateAsOfView<WithdrawalView>> {
    const at = new Date(query.at);
    const read = await aggregateStreamAsOf(this.dataSource.manager, withdrawalDecider, withdrawalEvents, toWithdrawalStreamId(merchantId, orderId), at);
    if (read.events.length === 0) throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
    return stateAsOfView(at, read, (withdrawal) => (withdrawal.status === 'NotRequested' ? null : withdrawalToView(withdrawal)));
  }

  /** Endpoint 12: newest first, cursor pages over the creation position (no gaps, no repeats). */
  @Get('merchants/:merchantId/withdrawals')
  async list(@Param('merchantId', MerchantIdParam) merchantId: string, @Query(queryPipe) query: WithdrawalListQueryDto): Promise<WithdrawalListPage> {
    const page = await listWithdrawals(this.dataSource.manager, { merchantId, status: query.status, ...pageFilterOf(query) });
    return { data: page.rows.map(rowToView), has_more: page.hasMore, next_cursor: page.nextCursor };
  }

  /** The asset table, for the methods endpoint. */
  @Get('withdrawal-assets')
  assets(): WithdrawalAssetsView {
    return {
      data: this.settings.assets.map((asset) => ({
        code: asset.code,
        network: asset.network,
        balance_asset: asset.balanceAsset,
        min_amount: formatAmountMinor(asset.minAmountMinor, asset.balanceAsset),
        network_fee: formatAmountMinor(asset.networkFeeMinor, asset.balanceAsset),
      })),
    };
  }

  /** Operators: withdrawals PENDING for longer than `older_than_seconds`, oldest first. */
  @Get('withdrawals/stuck')
  async stuck(@Query(queryPipe) query: StuckWithdrawalsQueryDto): Promise<StuckWithdrawalsView> {
    const seconds = query.older_than_seconds === undefined ? 900 : Number(query.older_than_seconds);
    const rows = await listStuckWithdrawals(this.dataSource.manager, seconds);
    return { data: rows.map(rowToBackofficeView) };
  }
}
