import type { HealthConfig } from './health.config';

export const HEALTH_SETTINGS = Symbol('HEALTH_SETTINGS');

export type HealthSettings = Pick<HealthConfig, 'consumerLagMax' | 'healthCheckTimeoutMs'>;
