/**
 * Log fields that must never be written, wherever they appear in a logged object: pino
 * replaces them with "[Redacted]" (fast-redact paths, compiled once). The messages services
 * write are sentences without secrets (apps/system-e2e/src/secrets-in-logs.e2e.spec.ts scans
 * every log of a run for the secrets it used); this is the net for objects logged whole, such
 * as request headers or a configuration.
 */
const SECRET_FIELDS = [
  'authorization',
  'Authorization',
  'cookie',
  'x-signature',
  'x-api-key',
  'x-service-token',
  'apiSecret',
  'api_secret',
  'webhookSecret',
  'webhook_secret',
  'secret',
  'password',
  'token',
  'accessToken',
  'access_token',
  'serviceToken',
  'internalServiceToken',
  'secretsMasterKey',
  'accountNumber',
  'account_number',
  'iban',
];

/** Each secret field at the top of a log line, one level down (`headers.authorization`), and two (`req.headers.authorization`). */
export const REDACTED_LOG_PATHS: string[] = SECRET_FIELDS.flatMap((field) => {
  const plain = /^\w+$/.test(field);
  const top = plain ? field : `["${field}"]`;
  const member = plain ? `.${field}` : `["${field}"]`;
  return [top, `*${member}`, `*.*${member}`];
});
