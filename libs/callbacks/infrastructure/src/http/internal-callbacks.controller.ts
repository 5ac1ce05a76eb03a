import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import type { CallbackDeliveryView, CallbackEndpointView } from '@mp/contracts-callbacks';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { DataSource } from 'typeorm';
import { CALLBACKS_SETTINGS, CLOCK, OffsetClock, type CallbacksSettings, type Clock } from '../callbacks-settings';
import { DeliveryWorker } from '../delivery/delivery.worker';
import { enableEndpoint, findDeliveries, listDisabledEndpoints, scheduleRedelivery } from '../persistence/delivery.store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The dispatcher's internal API (back office through the gateway; never exposed to merchants). */
@Controller('internal')
export class InternalCallbacksController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly worker: DeliveryWorker,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CALLBACKS_SETTINGS) private readonly settings: CallbacksSettings,
  ) {}

  /** The delivery log: `?merchant_id=&order_id=` (one order's callbacks) or `?event_id=` (one event's). */
  @Get('deliveries')
  async deliveries(@Query() query: Record<string, unknown>): Promise<{ data: CallbackDeliveryView[] }> {
    const text = (name: string) => (typeof query[name] === 'string' && query[name] !== '' ? (query[name] as string) : null);
    const [merchantId, orderId, eventId] = [text('merchant_id'), text('order_id'), text('event_id')];
    if (eventId) {
      if (!UUID.test(eventId)) throw new DomainError('VALIDATION_ERROR', 'event_id must be an event id (a UUID)', [{ field: 'event_id', issue: 'must be a UUID' }]);
      return { data: await findDeliveries(this.dataSource.manager, { sourceEventId: eventId }) };
    }
    if (merchantId && orderId) return { data: await findDeliveries(this.dataSource.manager, { merchantId, subjectId: orderId }) };
    const details: ErrorDetail[] = [{ field: merchantId ? 'order_id' : 'merchant_id', issue: 'is required unless event_id is given' }];
    throw new DomainError('VALIDATION_ERROR', 'Name an order (merchant_id and order_id) or an event (event_id)', details);
  }

  @Get('deliveries/:deliveryId')
  async delivery(@Param('deliveryId') deliveryId: string): Promise<CallbackDeliveryView> {
    const [found] = await findDeliveries(this.dataSource.manager, { deliveryId });
    if (!found) throw new DomainError('NOT_FOUND', `No callback ${deliveryId}`);
    return found;
  }

  /** Manual redelivery: the same webhook-id and body, attempted now (parked instead while its endpoint is disabled). */
  @Post('deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  async redeliver(@Param('deliveryId') deliveryId: string): Promise<CallbackDeliveryView> {
    if (!(await scheduleRedelivery(this.dataSource.manager, deliveryId, this.clock.now()))) throw new DomainError('NOT_FOUND', `No callback ${deliveryId}`);
    this.worker.nudge();
    return this.delivery(deliveryId);
  }

  @Get('endpoints/disabled')
  async disabledEndpoints(@Query('merchant_id') merchantId?: string): Promise<{ data: CallbackEndpointView[] }> {
    return { data: await listDisabledEndpoints(this.dataSource.manager, typeof merchantId === 'string' && merchantId !== '' ? merchantId : null) };
  }

  /** Re-enables an endpoint a 410 disabled; its parked callbacks are sent again. */
  @Post('endpoints/enable')
  @HttpCode(200)
  async enable(@Body() body: { merchant_id?: unknown; url?: unknown }): Promise<{ merchant_id: string; url: string; resumed_deliveries: number }> {
    const details: ErrorDetail[] = [];
    if (typeof body?.merchant_id !== 'string' || body.merchant_id === '') details.push({ field: 'merchant_id', issue: 'is required' });
    if (typeof body?.url !== 'string' || body.url === '') details.push({ field: 'url', issue: 'is required' });
    if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'Name the endpoint to re-enable', details);
    const [merchantId, url] = [body.merchant_id as string, body.url as string];
    const resumed = await this.dataSource.transaction((manager) => enableEndpoint(manager, merchantId, url, this.clock.now()));
    if (resumed === null) throw new DomainError('NOT_FOUND', `The endpoint ${url} of ${merchantId} is not disabled`);
    this.worker.nudge();
    return { merchant_id: merchantId, url, resumed_deliveries: resumed };
  }

  /** Tests only (TEST_CLOCK_ENABLED): move the dispatcher's clock forward and look for due callbacks now. */
  @Post('test/clock')
  @HttpCode(200)
  advanceClock(@Body() body: { advance_seconds?: number }): { now: string } {
    if (!this.settings.testClockEnabled || !(this.clock instanceof OffsetClock)) throw new DomainError('NOT_FOUND', 'No route');
    const seconds = Number(body?.advance_seconds);
    if (!Number.isFinite(seconds) || seconds < 0) throw new DomainError('VALIDATION_ERROR', 'advance_seconds must be a number ≥ 0', [{ field: 'advance_seconds', issue: 'invalid' }]);
    this.clock.advance(Math.round(seconds * 1_000));
    this.worker.nudge();
    return { now: this.clock.now().toISOString() };
  }
}
