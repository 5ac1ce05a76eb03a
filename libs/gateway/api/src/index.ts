export { GATEWAY_MIGRATIONS, GatewayApiModule } from './gateway-api.module';
export { GATEWAY_CLOCK, GATEWAY_SETTINGS, REQUEST_BODY_BYTES_MAX, type GatewaySettings } from './gateway-settings';
export { configureGatewayHttp, gatewayFastifyOptions } from './http/configure-http';
export { startInternalListener, type InternalListenerSettings } from './internal/internal-listener';
export { isTrustedProxyEntry } from './http/transport-security';
export { RateLimiter } from './rate-limit/rate-limiter';
export { DEFAULT_RATE_LIMITS, type RateLimitSettings } from './rate-limit/token-bucket';
export { CallbackDestinationPolicy } from './callback-destinations/callback-destination.policy';
export { GATEWAY_INTERNAL_ACCESS } from './internal/internal-access';
