// The services the start command runs, in start order, from the service catalog, with the environment each gets.
import { catalogServices } from '../../catalog/catalog.mjs';
import { envPrefix } from './settings.mjs';
import { masterKeyring } from './state-files.mjs';

/**
 * The services, in start order, come from the service catalog (deploy/catalog/services.json):
 * adding a service is one entry there. By convention a service serves its health path on
 * <NAME>_HTTP_PORT, keeps its data in <NAME>_DATABASE_URL (a database named after it), and gets
 * every other service's <NAME>_INTERNAL_URL; EXTRA_ENV adds what only one service needs.
 */
export const EXTRA_ENV = {
  payments: () => masterKeyring('PAYMENTS_SECRETS'),
  // GATEWAY_INSTANCE_ID is fixed so every start reuses one reply topic (gateway.replies.gateway-local).
  gateway: ({ gatewayInternalPort }) => ({
    ...masterKeyring('MERCHANT_SECRETS'),
    GATEWAY_INTERNAL_HTTP_PORT: String(gatewayInternalPort),
    GATEWAY_INSTANCE_ID: 'gateway-local',
  }),
  // Webhook secrets come from the gateway's internal-only listener, not the public port the convention's GATEWAY_INTERNAL_URL names.
  // An endpoint that keeps failing is disabled like one that answered 410 (docs/operations/callbacks.md); the environment's own values win.
  callbacks: ({ gatewayInternalPort }) => ({
    GATEWAY_INTERNAL_URL: `http://127.0.0.1:${gatewayInternalPort}`,
    CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES: process.env.CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES ?? '20',
    CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES: process.env.CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES ?? '1440',
  }),
  // Operator limits for trying the back office (docs/operations/ledger.md); the environment's own values win.
  ledger: () => ({
    LEDGER_CONVERSION_REFERENCE_RATES: process.env.LEDGER_CONVERSION_REFERENCE_RATES ?? 'RUB/USDT:0.0108',
    LEDGER_CONVERSION_MAX_AMOUNTS: process.env.LEDGER_CONVERSION_MAX_AMOUNTS ?? 'RUB/USDT:1000000000',
    LEDGER_APPROVAL_THRESHOLDS: process.env.LEDGER_APPROVAL_THRESHOLDS ?? 'RUB:100000000,USDT:1000000000',
  }),
  // How long after an open a dispute's review is due (its review_deadline); the environment's own value wins.
  disputes: () => ({ DISPUTE_REVIEW_WINDOW_HOURS: process.env.DISPUTE_REVIEW_WINDOW_HOURS ?? '72' }),
};
export const SERVICES = catalogServices.map(({ name, entry, devPort, health }) => ({ name, entry, devPort, healthPath: health.ready, env: EXTRA_ENV[name] }));

/** The environment a service process gets: the shared settings, every service's internal URL, its own port, database and key, and its EXTRA_ENV. */
export function serviceEnvironment(service, system) {
  const internalUrls = Object.fromEntries(SERVICES.map(({ name }) => [`${envPrefix(name)}_INTERNAL_URL`, system.urlOf(name)]));
  return {
    ...process.env,
    LOG_FORMAT: process.env.LOG_FORMAT ?? 'json',
    KAFKA_BROKERS: system.kafkaBrokers,
    PUBLIC_BASE_URL: system.urlOf('gateway'),
    ...internalUrls,
    [`${envPrefix(service.name)}_HTTP_PORT`]: String(system.ports.get(service.name)),
    [`${envPrefix(service.name)}_DATABASE_URL`]: system.databaseUrls[service.name],
    ...system.serviceKeys(service.name),
    ...(service.env?.(system) ?? {}),
  };
}
