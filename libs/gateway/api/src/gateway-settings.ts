/** What the gateway's feature module needs from the app's validated config. */
export interface GatewaySettings {
  /** Unique per running replica: names its reply subscription. */
  instanceId: string;
  /** How long a create request waits for the payments service before answering 503. */
  commandTimeoutMs: number;
  paymentsInternalUrl: string;
  ledgerInternalUrl: string;
  withdrawalsInternalUrl: string;
  paymentsReadTimeoutMs: number;
  /** Development only: accept http:// callback URLs. */
  allowHttpCallbackUrls: boolean;
  commandPartitions: number;
}

export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');

/** The maximum request body, enforced by the HTTP server before any signature work. */
export const REQUEST_BODY_BYTES_MAX = 64 * 1024;
