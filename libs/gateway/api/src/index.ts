export { GATEWAY_MIGRATIONS, GatewayApiModule } from './gateway-api.module';
export { GATEWAY_SETTINGS, REQUEST_BODY_BYTES_MAX, type GatewaySettings } from './gateway-settings';
export { configureGatewayHttp, gatewayFastifyOptions } from './http/configure-http';
export { startInternalListener, type InternalListenerSettings } from './internal/internal-listener';
export { isTrustedProxyEntry } from './http/transport-security';
export { GATEWAY_INTERNAL_ACCESS } from './internal/internal-access';
