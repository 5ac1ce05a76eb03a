/** What the gateway's feature module needs from the app's validated config. */
export interface GatewaySettings {
  /** Unique per running replica: names its reply subscription. */
  instanceId: string;
  /** How long a create request waits for the payments service before answering 503. */
  commandTimeoutMs: number;
  paymentsInternalUrl: string;
  ledgerInternalUrl: string;
  paymentsReadTimeoutMs: number;
  /** Development only: accept http:// callback URLs. */
  allowHttpCallbackUrls: boolean;
  commandPartitions: number;
  /** The callback dispatcher's internal API (delivery log, redelivery, disabled endpoints). */
  callbacksInternalUrl: string;
  /** How long a rotated-out webhook secret keeps signing callbacks, unless the operator says otherwise. */
  webhookSecretOverlapHours: number;
}

export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');

/** The maximum request body, enforced by the HTTP server before any signature work. */
export const REQUEST_BODY_BYTES_MAX = 64 * 1024;
