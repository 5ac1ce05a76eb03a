import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { StuckWithdrawalsQueryDto, WithdrawalListQueryDto, type BackofficeWithdrawalView, type StuckWithdrawalsView, type WithdrawalAssetsView, type WithdrawalListPage, type WithdrawalView } from '@mp/contracts-withdrawals';
import { MerchantIdParam, PathIdPipe, RequestPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { MERCHANT_ID_PATTERN, ORDER_ID_PATTERN } from '@mp/shared-util-validation';
import { formatAmountMinor } from '@mp/shared-util-money';
import { DataSource } from 'typeorm';
import { findWithdrawal, rowToBackofficeView, rowToView, WITHDRAWAL_COLUMNS, type WithdrawalRow } from '../persistence/withdrawal.projection';
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
  async getWithdrawal(@Param('merchantId', WithdrawalMerchantIdParam) merchantId: string, @Param('orderId', WithdrawalOrderIdParam) orderId: string): Promise<WithdrawalView> {
    const row = await findWithdrawal(this.dataSource.manager, merchantId, orderId);
    if (!row) throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
    return rowToView(row);
  }

  /** Operators: the withdrawal with where the sender stands and any reconciliation's evidence. */
  @Get('withdrawals/:merchantId/:orderId')
  async getForOperator(@Param('merchantId', WithdrawalMerchantIdParam) merchantId: string, @Param('orderId', WithdrawalOrderIdParam) orderId: string): Promise<BackofficeWithdrawalView> {
    const row = await findWithdrawal(this.dataSource.manager, merchantId, orderId);
    if (!row) throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
    return rowToBackofficeView(row);
  }

  /** Endpoint 12: newest first, cursor pages over the creation position (no gaps, no repeats). */
  @Get('merchants/:merchantId/withdrawals')
  async list(@Param('merchantId', MerchantIdParam) merchantId: string, @Query(queryPipe) query: WithdrawalListQueryDto): Promise<WithdrawalListPage> {
    const conditions = ['merchant_id = $1'];
    const values: unknown[] = [merchantId];
    const add = (sql: string, value: unknown) => {
      values.push(value);
      conditions.push(sql.replace('?', `$${values.length}`));
    };
    if (query.status !== undefined) add('status = ?', query.status);
    if (query.created_from !== undefined) add('created_at >= ?', new Date(query.created_from));
    if (query.created_to !== undefined) add('created_at <= ?', new Date(query.created_to));
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (query.cursor !== undefined) {
      const position = decodeCursor(query.cursor);
      if (position === null) throw new DomainError('VALIDATION_ERROR', 'The list filters are not valid', [{ field: 'cursor', issue: 'is not a cursor this API returned' }]);
      add('list_position < ?', position);
    }
    values.push(limit + 1);
    const rows: WithdrawalRow[] = await this.dataSource.query(`SELECT ${WITHDRAWAL_COLUMNS} FROM withdrawals WHERE ${conditions.join(' AND ')} ORDER BY list_position DESC LIMIT $${values.length}`, values);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return { data: page.map(rowToView), has_more: hasMore, next_cursor: hasMore ? encodeCursor(page[page.length - 1].list_position) : null };
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
    const rows: WithdrawalRow[] = await this.dataSource.query(
      `SELECT ${WITHDRAWAL_COLUMNS} FROM withdrawals WHERE status = 'PENDING' AND created_at < now() - make_interval(secs => $1) ORDER BY list_position LIMIT 500`,
      [seconds],
    );
    return { data: rows.map(rowToBackofficeView) };
  }
}

function encodeCursor(listPosition: string): string {
  return Buffer.from(`w:${listPosition}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string | null {
  const match = /^w:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? match[1] : null;
}
