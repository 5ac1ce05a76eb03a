import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  AdvanceCallbacksClockRequestDto,
  CALLBACK_DELIVERY_ID_PATTERN,
  CallbackDeliveriesQueryDto,
  DefaultCallbackUrlSetRequestDto,
  DisabledEndpointsQueryDto,
  EnableCallbackEndpointRequestDto,
  TestDeliveryRequestDto,
  WebhookDeliveriesQueryDto,
  type CallbackDeliveryView,
  type CallbackEndpointView,
  type MerchantWebhookDeliveryDetailView,
  type MerchantWebhookDeliveryPage,
} from '@mp/contracts-callbacks';
import { callbackBodyOf, testCallbackIntent, webhookIdOf } from '@mp/callbacks-domain';
import { MerchantIdParam, PathIdPipe, RequestPipe } from '@mp/shared-nest-http';
import { randomUUID } from 'node:crypto';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource } from 'typeorm';
import { CALLBACKS_SETTINGS, CLOCK, OffsetClock, type CallbacksSettings, type Clock } from '../callbacks-settings';
import { DeliveryWorker } from '../delivery/delivery.worker';
import { insertDeliveries, resumeAwaitingUrl, scheduleRedelivery } from '../persistence/delivery.store';
import { findDeliveries, findMerchantDelivery, listMerchantDeliveries, scheduleMerchantRedelivery } from '../persistence/delivery-log.store';
import { enableEndpoint, isEndpointDisabled, listDisabledEndpoints } from '../persistence/endpoint-health.store';

const requestPipe = new RequestPipe();
/** A malformed callback id names no callback: answered like an unknown one. */
const DeliveryIdParam = new PathIdPipe(CALLBACK_DELIVERY_ID_PATTERN, 'NOT_FOUND', (id) => `No callback ${id}`);

const endpointDisabled = (url: string) =>
  new DomainError(
    'WEBHOOK_ENDPOINT_DISABLED',
    `The endpoint ${url} is disabled; re-enable it (POST /v2/webhooks/endpoints/enable), which sends its parked callbacks`,
    [{ field: 'url', issue: 'is disabled' }],
  );

/**
 * The dispatcher's internal API, called by the gateway only: the operators' back office, and the
 * merchants' webhook tools under `merchants/{merchantId}/…`, where every query takes the merchant
 * id, so one merchant's request never reads or moves another's callback.
 */
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
    if (!(await this.dataSource.transaction((manager) => scheduleRedelivery(manager, deliveryId, this.clock.now()))))
      throw new DomainError('NOT_FOUND', `No callback ${deliveryId}`);
    this.worker.nudge();
    return this.delivery(deliveryId);
  }

  @Get('endpoints/disabled')
  async disabledEndpoints(@Query(requestPipe) query: DisabledEndpointsQueryDto): Promise<{ data: CallbackEndpointView[] }> {
    return { data: await listDisabledEndpoints(this.dataSource.manager, query.merchant_id ?? null) };
  }

  /** Re-enables an endpoint a 410 or a long run of failures disabled; its parked callbacks are sent again. */
  @Post('endpoints/enable')
  @HttpCode(200)
  async enable(@Body(requestPipe) body: EnableCallbackEndpointRequestDto): Promise<{ merchant_id: string; url: string; resumed_deliveries: number }> {
    const [merchantId, url] = [body.merchant_id, body.url];
    const resumed = await this.dataSource.transaction((manager) => enableEndpoint(manager, merchantId, url, this.clock.now()));
    if (resumed === null) throw new DomainError('NOT_FOUND', `The endpoint ${url} of ${merchantId} is not disabled`);
    this.worker.nudge();
    return { merchant_id: merchantId, url, resumed_deliveries: resumed };
  }

  /** A merchant's delivery log, newest first (docs/api/states.md "Lists"). */
  @Get('merchants/:merchantId/deliveries')
  merchantDeliveries(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Query(requestPipe) query: WebhookDeliveriesQueryDto,
  ): Promise<MerchantWebhookDeliveryPage> {
    return listMerchantDeliveries(this.dataSource.manager, merchantId, query);
  }

  @Get('merchants/:merchantId/deliveries/:deliveryId')
  async merchantDelivery(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('deliveryId', DeliveryIdParam) deliveryId: string,
  ): Promise<MerchantWebhookDeliveryDetailView> {
    const found = await findMerchantDelivery(this.dataSource.manager, merchantId, deliveryId);
    if (!found) throw new DomainError('NOT_FOUND', `No callback ${deliveryId}`);
    return found;
  }

  /**
   * The merchant set its default callback URL (PATCH /v2/merchant): the withdrawal and dispute
   * outcomes kept `awaiting_url` go there now. Idempotent: a second call finds none left.
   */
  @Post('merchants/:merchantId/default-callback-url')
  @HttpCode(200)
  async defaultUrlSet(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Body(requestPipe) body: DefaultCallbackUrlSetRequestDto,
  ): Promise<{ merchant_id: string; url: string; resumed_deliveries: number }> {
    const resumed = await this.dataSource.transaction((manager) => resumeAwaitingUrl(manager, merchantId, body.url, this.clock.now()));
    if (resumed > 0) this.worker.nudge();
    return { merchant_id: merchantId, url: body.url, resumed_deliveries: resumed };
  }

  /** The merchant's redelivery: 409 while its endpoint is disabled (re-enabling it sends it). */
  @Post('merchants/:merchantId/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  async merchantRedeliver(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('deliveryId', DeliveryIdParam) deliveryId: string,
  ): Promise<MerchantWebhookDeliveryDetailView> {
    const outcome = await this.dataSource.transaction((manager) => scheduleMerchantRedelivery(manager, merchantId, deliveryId, this.clock.now()));
    if (outcome === 'not_found') throw new DomainError('NOT_FOUND', `No callback ${deliveryId}`);
    const delivery = await this.merchantDelivery(merchantId, deliveryId);
    if (outcome === 'endpoint_disabled') throw endpointDisabled(delivery.url ?? '');
    this.worker.nudge();
    return delivery;
  }

  /**
   * A `webhook.test` callback to a URL the gateway checked against the destination policy: a
   * delivery like any other (signed per attempt, retried, listed). Refused for a disabled endpoint,
   * where it would only be parked.
   */
  @Post('merchants/:merchantId/test-deliveries')
  @HttpCode(202)
  async merchantTestDelivery(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Body(requestPipe) body: TestDeliveryRequestDto,
  ): Promise<MerchantWebhookDeliveryDetailView> {
    const sourceEventId = randomUUID();
    const deliveryId = webhookIdOf(sourceEventId);
    const now = this.clock.now();
    const intent = testCallbackIntent(merchantId, deliveryId, body.url, now);
    await this.dataSource.transaction(async (manager) => {
      if (await isEndpointDisabled(manager, merchantId, body.url)) throw endpointDisabled(body.url);
      await insertDeliveries(
        manager,
        [
          {
            deliveryId,
            sourceEvent: { id: sourceEventId, type: 'WebhookTestRequested', topic: 'merchant-request' },
            intent,
            targetUrl: body.url,
            body: callbackBodyOf(deliveryId, intent),
          },
        ],
        now,
      );
    });
    this.worker.nudge();
    return this.merchantDelivery(merchantId, deliveryId);
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
