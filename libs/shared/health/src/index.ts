export { readHealthConfig, type HealthConfig } from './health.config';
export { HealthModule } from './health.module';
export { HEALTH_SETTINGS, type HealthSettings } from './health-settings';
export { Readiness } from './readiness';
export { DRAINING_HTTP_OPTIONS, exitGracefullyOnSignals } from './graceful-shutdown';
export { internalListenerOptions, internalListenerScheme, listenInternally, reloadInternalTlsWhenRenewed } from './internal-listener-tls';
