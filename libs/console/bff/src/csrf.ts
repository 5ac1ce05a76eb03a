import { timingSafeEqual } from 'node:crypto';

/** What the CSRF rule reads of a request to /console/api. */
export interface CsrfCheckInput {
  method: string;
  /** The request's Host header: the gateway's own origin is the one the browser reached. */
  host: string | undefined;
  origin: string | undefined;
  csrfHeader: string | undefined;
  /** The session's token; null for login, which has no session yet. */
  sessionCsrfToken: string | null;
  isLogin: boolean;
}

export type CsrfCheck = { ok: true } | { ok: false; issue: string; field: 'origin' | 'x-csrf-token' };

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Every request that may change something carries an Origin naming this gateway (browsers set
 * it and pages cannot) and, except login, the session's CSRF token in `x-csrf-token` (a page
 * of another origin cannot read it). SameSite=Strict already keeps the cookie off cross-site
 * requests; this holds even where a browser or a proxy gets that wrong.
 */
export function checkCsrf(input: CsrfCheckInput): CsrfCheck {
  if (SAFE_METHODS.has(input.method.toUpperCase())) return { ok: true };
  if (!input.origin || !input.host || !isSameOrigin(input.origin, input.host)) return { ok: false, field: 'origin', issue: "must be the console's own origin" };
  if (input.isLogin) return { ok: true };
  if (!input.csrfHeader || !input.sessionCsrfToken || !constantTimeEqual(input.csrfHeader, input.sessionCsrfToken))
    return { ok: false, field: 'x-csrf-token', issue: 'must be the csrf_token of the session' };
  return { ok: true };
}

/** The Origin's host and port are the ones this request was sent to (http or https: the gateway may sit behind TLS termination). */
function isSameOrigin(origin: string, host: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  return (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.origin === origin && parsed.host === host.toLowerCase();
}

function constantTimeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
