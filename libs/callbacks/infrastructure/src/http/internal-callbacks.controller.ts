import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  AdvanceCallbacksClockRequestDto,
  CALLBACK_DELIVERY_ID_PATTERN,
  CallbackDeliveriesQueryDto,
  DisabledEndpointsQueryDto,
  EnableCallbackEndpointRequestDto,
  type CallbackDeliveryView,
  type CallbackEndpointView,
} from '@mp/contracts-callbacks';
import { PathIdPipe, RequestPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource } from 'typeorm';
import { CALLBACKS_SETTINGS, CLOCK, OffsetClock, type CallbacksSettings, type Clock } from '../callbacks-settings';
import { DeliveryWorker } from '../delivery/delivery.worker';
import { enableEndpoint, findDeliveries, listDisabledEndpoints, scheduleRedelivery } from '../persistence/delivery.store';

const requestPipe = new RequestPipe();
/** A malformed callback id names no callback: answered like an unknown one. */
const DeliveryIdParam = new PathIdPipe(CALLBACK_DELIVERY_ID_PATTERN, 'NOT_FOUND', (id) => `No callback ${id}`);

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
  async deliveries(@Query(requestPipe) query: CallbackDeliveriesQueryDto): Promise<{ data: CallbackDeliveryView[] }> {
    if (query.event_id !== undefined) return { data: await findDeliveries(this.dataSource.manager, { sourceEventId: query.event_id }) };
    return { data: await findDeliveries(this.dataSource.manager, { merchantId: query.merchant_id as string, subjectId: query.order_id as string }) };
  }

  @Get('deliveries/:deliveryId')
  async delivery(@Param('deliveryId', DeliveryIdParam) deliveryId: string): Promise<CallbackDeliveryView> {
    const [found] = await findDeliveries(this.dataSource.manager, { deliveryId });
    if (!found) throw new DomainError('NOT_FOUND', `No callback ${deliveryId}`);
    return found;
  }

  /** Manual redelivery: the same webhook-id and body, attempted now (parked instead while its endpoint is disabled). */
  @Post('deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  async redeliver(@Param('deliveryId', DeliveryIdParam) deliveryId: string): Promise<CallbackDeliveryView> {
    if (!(await scheduleRedelivery(this.dataSource.manager, deliveryId, this.clock.now()))) throw new DomainError('NOT_FOUND', `No callback ${deliveryId}`);
    this.worker.nudge();
    return this.delivery(deliveryId);
  }

  @Get('endpoints/disabled')
  async disabledEndpoints(@Query(requestPipe) query: DisabledEndpointsQueryDto): Promise<{ data: CallbackEndpointView[] }> {
    return { data: await listDisabledEndpoints(this.dataSource.manager, query.merchant_id ?? null) };
  }

  /** Re-enables an endpoint a 410 disabled; its parked callbacks are sent again. */
  @Post('endpoints/enable')
  @HttpCode(200)
  async enable(@Body(requestPipe) body: EnableCallbackEndpointRequestDto): Promise<{ merchant_id: string; url: string; resumed_deliveries: number }> {
    const [merchantId, url] = [body.merchant_id, body.url];
    const resumed = await this.dataSource.transaction((manager) => enableEndpoint(manager, merchantId, url, this.clock.now()));
    if (resumed === null) throw new DomainError('NOT_FOUND', `The endpoint ${url} of ${merchantId} is not disabled`);
    this.worker.nudge();
    return { merchant_id: merchantId, url, resumed_deliveries: resumed };
  }

  /** Tests only (TEST_CLOCK_ENABLED): move the dispatcher's clock forward and look for due callbacks now. */
  @Post('test/clock')
  @HttpCode(200)
  advanceClock(@Body(requestPipe) body: AdvanceCallbacksClockRequestDto): { now: string } {
    if (!this.settings.testClockEnabled || !(this.clock instanceof OffsetClock)) throw new DomainError('NOT_FOUND', 'No route');
    this.clock.advance(Math.round(body.advance_seconds * 1_000));
    this.worker.nudge();
    return { now: this.clock.now().toISOString() };
  }
}
