export { MetricsRegistry, setCounterTotals, unexportedRegistry, type MetricsExposition } from './metrics-registry';
export { MetricsModule, type MetricsModuleOptions } from './metrics.module';
export { instrumentHttp, serveMetrics, UNMATCHED_ROUTE } from './http-metrics';
export { countAfterCommit } from './committed-counts';
