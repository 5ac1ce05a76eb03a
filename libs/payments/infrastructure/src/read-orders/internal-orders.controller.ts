import { Controller, Get, Inject, NotFoundException, Param } from '@nestjs/common';
import type { PaymentOrderView } from '@mp/contracts-payments';
import { DataSource } from 'typeorm';
import { findOrder, findOrderByPayerPageToken, rowToView } from '../persistence/payment-order.projection';
import { PAYMENTS_SETTINGS, type PaymentsSettings } from '../payments-settings';

/**
 * Reads for the gateway and the payer page, served from the projection. Internal only: this
 * port is not exposed to merchants, and the gateway has already authenticated the merchant.
 */
@Controller('internal')
export class InternalOrdersController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
  ) {}

  @Get('merchants/:merchantId/orders/:orderId')
  async getOrder(@Param('merchantId') merchantId: string, @Param('orderId') orderId: string): Promise<PaymentOrderView> {
    const row = await findOrder(this.dataSource.manager, merchantId, orderId);
    if (!row) throw new NotFoundException({ code: 'ORDER_NOT_FOUND', message: `No order ${orderId}`, details: [] });
    return rowToView(row, this.settings.payerPageBaseUrl);
  }

  @Get('payer-pages/:token')
  async getPayerPage(@Param('token') token: string): Promise<PaymentOrderView> {
    const row = await findOrderByPayerPageToken(this.dataSource.manager, token);
    if (!row) throw new NotFoundException({ code: 'NOT_FOUND', message: 'No such payment page', details: [] });
    return rowToView(row, this.settings.payerPageBaseUrl);
  }
}

@Controller()
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('health')
  async health(): Promise<{ status: 'ok' }> {
    await this.dataSource.query('SELECT 1');
    return { status: 'ok' };
  }
}
