import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { WITHDRAWAL_STATUSES, type StuckWithdrawalsView, type WithdrawalAssetsView, type WithdrawalListPage, type WithdrawalStatusView, type WithdrawalView } from '@mp/contracts-withdrawals';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { formatAmountMinor } from '@mp/shared-util-money';
import { DataSource } from 'typeorm';
import { findWithdrawal, rowToBackofficeView, rowToView, WITHDRAWAL_COLUMNS, type WithdrawalRow } from '../persistence/withdrawal.projection';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from '../withdrawals-settings';

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
  async getWithdrawal(@Param('merchantId') merchantId: string, @Param('orderId') orderId: string): Promise<WithdrawalView> {
    const row = await findWithdrawal(this.dataSource.manager, merchantId, orderId);
    if (!row) throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
    return rowToView(row);
  }

  /** Endpoint 12: newest first, cursor pages over the creation position (no gaps, no repeats). */
  @Get('merchants/:merchantId/withdrawals')
  async list(@Param('merchantId') merchantId: string, @Query() query: Record<string, string>): Promise<WithdrawalListPage> {
    const details: ErrorDetail[] = [];
    const conditions = ['merchant_id = $1'];
    const values: unknown[] = [merchantId];
    const add = (sql: string, value: unknown) => {
      values.push(value);
      conditions.push(sql.replace('?', `$${values.length}`));
    };
    if (query['status'] !== undefined) {
      if (!WITHDRAWAL_STATUSES.includes(query['status'] as WithdrawalStatusView)) details.push({ field: 'status', issue: `must be one of ${WITHDRAWAL_STATUSES.join(', ')}` });
      else add('status = ?', query['status']);
    }
    for (const [field, sql] of [['created_from', 'created_at >= ?'], ['created_to', 'created_at <= ?']] as const) {
      if (query[field] === undefined) continue;
      const time = new Date(query[field]);
      if (Number.isNaN(time.getTime())) details.push({ field, issue: 'must be an ISO 8601 date-time' });
      else add(sql, time);
    }
    const limit = query['limit'] === undefined ? 50 : Number(query['limit']);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) details.push({ field: 'limit', issue: 'must be a whole number from 1 to 100' });
    if (query['cursor'] !== undefined) {
      const position = decodeCursor(query['cursor']);
      if (position === null) details.push({ field: 'cursor', issue: 'is not a cursor this API returned' });
      else add('list_position < ?', position);
    }
    if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The list filters are not valid', details);
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
  async stuck(@Query('older_than_seconds') olderThanSeconds: string | undefined): Promise<StuckWithdrawalsView> {
    const seconds = olderThanSeconds === undefined ? 900 : Number(olderThanSeconds);
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 30 * 86_400) {
      throw new DomainError('VALIDATION_ERROR', 'The query is not valid', [{ field: 'older_than_seconds', issue: 'must be a whole number of seconds up to 30 days' }]);
    }
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
