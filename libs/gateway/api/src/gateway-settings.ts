import { RECEIPT_BYTES_MAX } from '@mp/shared-util-validation';
import type { RateLimitSettings } from './rate-limit/token-bucket';

/** What the gateway's feature module needs from the app's validated config. */
export interface GatewaySettings {
  /** Unique per running replica: names its reply subscription. */
  instanceId: string;
  /** How often this replica sweeps the reply topics of replicas that are gone (ReplyTopicSweeper). */
  replyTopicSweepIntervalMs: number;
  /** How long a reply topic's group must be seen without members before it is deleted. */
  replyTopicGraceMs: number;
  /** How long a create request waits for the payments service before answering 503. */
  commandTimeoutMs: number;
  paymentsInternalUrl: string;
  ledgerInternalUrl: string;
  withdrawalsInternalUrl: string;
  disputesInternalUrl: string;
  paymentsReadTimeoutMs: number;
  /** Development only: accept http:// callback URLs. */
  allowHttpCallbackUrls: boolean;
  /** CALLBACK_ALLOWED_PORTS: the ports a callback URL may name (ranges, inclusive). */
  callbackAllowedPorts: ReadonlyArray<readonly [number, number]>;
  commandPartitions: number;
  /** The callback dispatcher's internal API (delivery log, redelivery, disabled endpoints). */
  callbacksInternalUrl: string;
  /** How long a rotated-out webhook secret keeps signing callbacks, unless the operator says otherwise. */
  webhookSecretOverlapHours: number;
  /** How long a rotated-out API secret still verifies, unless the operator says otherwise. */
  apiSecretOverlapHours: number;
  /** How long an operator credential works from its creation, unless the issuer asks for less. */
  operatorCredentialLifetimeDays: number;
  /** OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS: the most an issuer may ask for. */
  operatorCredentialLifetimeMaxDays: number;
  /** OPERATOR_LIVE_CREDENTIALS_MAX: live operator credentials one operator may have issued. */
  operatorLiveCredentialsMax: number;
  /** AGENT_CREDENTIAL_LIFETIME_DAYS: how long an agent credential works, and the most an operator may ask for. */
  agentCredentialLifetimeDays: number;
  /** Tests only: the gateway's clock (secret overlaps, credential expiry) can be moved forward. */
  testClockEnabled: boolean;
  /** Token buckets per merchant and per client address (GATEWAY_RATE_LIMIT_*). */
  rateLimits: RateLimitSettings;
  /** GATEWAY_TRUSTED_PROXIES: whose X-Forwarded-For names the client address. */
  trustedProxies: readonly string[];
  /** CREDENTIAL_CACHE_TTL_MS: how long a replica trusts what it read of a merchant (secrets, callback allow-list). */
  credentialCacheTtlMs: number;
}

export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');

/** The clock's one token, shared by the services (the gateway provides an OffsetClock under it). */
export { CLOCK } from '@mp/shared-util-clock';

/** The maximum request body, enforced by the HTTP server before any signature work. */
export const REQUEST_BODY_BYTES_MAX = 64 * 1024;

/**
 * Endpoint 14 only: a 5 MB receipt as base64 (4 bytes per 3) plus the rest of the body. Still
 * read as raw bytes and signed as sent; every other route keeps REQUEST_BODY_BYTES_MAX.
 */
export const DISPUTE_REQUEST_BODY_BYTES_MAX = Math.ceil(RECEIPT_BYTES_MAX / 3) * 4 + REQUEST_BODY_BYTES_MAX;

/**
 * An agent's payout receipt upload: the raw file is the body, so the limit is the receipt's own
 * (5 MiB), not the JSON routes'.
 */
export const RECEIPT_UPLOAD_BODY_BYTES_MAX = RECEIPT_BYTES_MAX;

/** An agent's payout receipt upload, as `METHOD url` of its route: its body is streamed on, not parsed. */
export const RECEIPT_UPLOAD_ROUTE = 'POST /backoffice/v1/agent/orders/:merchantId/:orderId/receipts';

/**
 * The console's relay of agents' calls (libs/console/bff): a receipt upload through the console
 * streams on to RECEIPT_UPLOAD_ROUTE, so it takes the same file types and limit.
 */
export const CONSOLE_AGENT_RELAY_ROUTE = 'POST /console/api/agent/*';

/** The routes a receipt file may be sent to. */
export const RECEIPT_FILE_ROUTES: ReadonlySet<string> = new Set([RECEIPT_UPLOAD_ROUTE, CONSOLE_AGENT_RELAY_ROUTE]);

/**
 * The payer page's form posts carry no fields (the token is in the path): anyone holding a link
 * may post, so what they may send is capped far below the signed routes' limit.
 */
export const PAYER_PAGE_BODY_BYTES_MAX = 1024;

/** The routes whose body limit is not REQUEST_BODY_BYTES_MAX (docs/api/endpoints.md lists every limit). */
export const BODY_BYTES_MAX_BY_ROUTE: ReadonlyMap<string, number> = new Map([
  ['POST /v2/disputes', DISPUTE_REQUEST_BODY_BYTES_MAX],
  [RECEIPT_UPLOAD_ROUTE, RECEIPT_UPLOAD_BODY_BYTES_MAX],
  [CONSOLE_AGENT_RELAY_ROUTE, RECEIPT_UPLOAD_BODY_BYTES_MAX],
  ['POST /pay/:token/details', PAYER_PAGE_BODY_BYTES_MAX],
  ['POST /pay/:token/paid', PAYER_PAGE_BODY_BYTES_MAX],
]);
