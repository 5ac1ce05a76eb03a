import { Inject, Injectable, type ArgumentMetadata } from '@nestjs/common';
import { RequestPipe } from '@mp/shared-nest-http';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { callbackUrlGroup } from '../payments/create-payment.request';

/** Parameter types that are not request classes: Nest passes them for strings, path ids and interfaces. */
const NOT_REQUEST_CLASSES: ReadonlySet<unknown> = new Set([String, Number, Boolean, Object, Array, Buffer, Date]);

/**
 * The gateway's one validation pipe (APP_PIPE): every whole body (`@Body()`) and whole query
 * (`@Query()`) whose type is a request class becomes that class through RequestPipe, with the
 * decisions' VALIDATION_ERROR for anything wrong. Everything else passes untouched to its own
 * pipe: path ids (`@Param('orderId', OrderIdParam)`), one named query value, the principal.
 *
 * One pipe instead of one per parameter: a route cannot forget it, and the options are the same
 * for every route except what a request class says about itself (`@RequestOptions`: an optional
 * body, plain numbers) and the callback URL policy, which is a validation group only
 * `IsCallbackUrl` fields belong to, so applying it to every class changes nothing for the others.
 */
@Injectable()
export class GatewayRequestPipe extends RequestPipe {
  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings) {
    super({ groups: [callbackUrlGroup(settings.allowHttpCallbackUrls)] });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const wholeBodyOrQuery = (metadata.type === 'body' || metadata.type === 'query') && metadata.data === undefined;
    const requestClass = typeof metadata.metatype === 'function' && !NOT_REQUEST_CLASSES.has(metadata.metatype);
    return wholeBodyOrQuery && requestClass ? super.transform(value, metadata) : value;
  }
}
