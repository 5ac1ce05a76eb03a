import { IsDefined, IsOptional, IsUUID, ValidateIf } from 'class-validator';
import { CALLBACK_DELIVERY_STATUSES, CALLBACK_TYPES, TEST_CALLBACK_TYPE, type CallbackDeliveryStatus, type CallbackType } from './callback-types';
import {
  CreationPeriodAndCursorFilters,
  FieldRule,
  IsOneOf,
  IsOrderId,
  IsWholeNumberBetween,
  MatchesPattern,
  MERCHANT_ID_PATTERN,
  RequestMessages,
} from '@mp/shared-util-validation';

/**
 * The request classes of the dispatcher's internal API: the dispatcher validates what it
 * receives with them, and the gateway's operator endpoints check the same fields first.
 * class-validator only (contracts stay framework-free); the gateway adds OpenAPI decorators.
 */

/** A callback's id (= its `webhook-id`): `msg_` and the source event id's 32 hex digits. */
export const CALLBACK_DELIVERY_ID_PATTERN = /^msg_[0-9a-f]{32}$/;
const MERCHANT_ID_RULE = 'must be a merchant id (mch_ and 24 hex digits)';
const EVENT_ID_RULE = 'must be an event id (a UUID)';
const unlessEvent = (query: CallbackDeliveriesQueryDto) => query.event_id === undefined;

/** `?merchant_id=&order_id=` (one order's callbacks) or `?event_id=` (one event's). */
@RequestMessages({
  invalid: 'Name an order (merchant_id and order_id) or an event (event_id)',
  unknownField: 'is not a filter here; use merchant_id and order_id, or event_id',
})
export class CallbackDeliveriesQueryDto {
  @ValidateIf(unlessEvent)
  @IsDefined({ message: 'is required unless event_id is given' })
  @MatchesPattern(MERCHANT_ID_PATTERN, MERCHANT_ID_RULE)
  merchant_id?: string;

  @ValidateIf(unlessEvent)
  @IsDefined({ message: 'is required unless event_id is given' })
  @IsOrderId()
  order_id?: string;

  @IsOptional()
  @IsUUID('all', { message: EVENT_ID_RULE })
  event_id?: string;
}

/** `?merchant_id=`: one merchant's disabled endpoints (every merchant's without it). */
@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a filter here; use merchant_id' })
export class DisabledEndpointsQueryDto {
  @IsOptional()
  @MatchesPattern(MERCHANT_ID_PATTERN, MERCHANT_ID_RULE)
  merchant_id?: string;
}

/** The endpoint URL as the dispatcher recorded it when a 410 disabled it. */
/** A callback endpoint's URL as the dispatcher keeps it (the gateway's description shows the same pattern). */
export const ENDPOINT_URL_PATTERN = /^https?:\/\/\S{1,2040}$/;
const CallbackUrl = () => MatchesPattern(ENDPOINT_URL_PATTERN, 'must be the endpoint URL (http(s), at most 2048 characters)');

/** The operator's body: the merchant comes from the path. */
@RequestMessages({ invalid: 'Name the endpoint to re-enable' })
export class EnableCallbackEndpointBodyDto {
  @CallbackUrl()
  url!: string;
}

/** The dispatcher's internal body. */
@RequestMessages({ invalid: 'Name the endpoint to re-enable' })
export class EnableCallbackEndpointRequestDto extends EnableCallbackEndpointBodyDto {
  @MatchesPattern(MERCHANT_ID_PATTERN, MERCHANT_ID_RULE)
  merchant_id!: string;
}

/** The merchant's new default callback URL (the gateway checked it), for the outcomes awaiting one. */
@RequestMessages({ invalid: 'Name the default callback URL that was set' })
export class DefaultCallbackUrlSetRequestDto extends EnableCallbackEndpointBodyDto {}

/**
 * `GET /v2/webhooks/deliveries` (and the dispatcher's merchant-scoped log): docs/api/states.md "Lists"
 * (creation period, `limit` 1 to 100, `cursor`) plus the callback's order, status and type.
 */
@RequestMessages({
  invalid: 'The list filters are not valid',
  unknownField: 'is not a filter; use order_id, status, event_type, created_from, created_to, limit, cursor',
})
export class WebhookDeliveriesQueryDto extends CreationPeriodAndCursorFilters {
  @IsOptional()
  @IsOrderId()
  order_id?: string;

  @IsOptional()
  @IsOneOf(CALLBACK_DELIVERY_STATUSES)
  status?: CallbackDeliveryStatus;

  @IsOptional()
  @IsOneOf(CALLBACK_TYPES)
  event_type?: CallbackType;

  @IsOptional()
  @IsWholeNumberBetween(1, 100, 'query')
  limit?: string;
}

/** `POST /v2/webhooks/test`: where to send it (the merchant's default callback URL without `url`). */
@RequestMessages({ invalid: 'The test callback request is not valid', unknownField: 'is not a field here; use url, event_type' })
export class SendTestWebhookBodyDto {
  @IsOptional()
  @CallbackUrl()
  url?: string;

  @IsOptional()
  @IsOneOf([TEST_CALLBACK_TYPE], `must be ${TEST_CALLBACK_TYPE}`)
  event_type?: typeof TEST_CALLBACK_TYPE;
}

/** The dispatcher's body: the URL the gateway resolved and checked against the destination policy. */
@RequestMessages({ invalid: 'Name the URL to send the test callback to' })
export class TestDeliveryRequestDto {
  @CallbackUrl()
  url!: string;
}

/** Tests only: how far to move the dispatcher's clock. */
export class AdvanceCallbacksClockRequestDto {
  @FieldRule('isSecondsAhead', (value) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? null : 'must be a number of seconds ≥ 0'))
  advance_seconds!: number;
}
