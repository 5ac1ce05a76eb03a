/**
 * The console's session cookie. `__Host-` makes browsers insist on Secure, Path=/ and no Domain,
 * so no subdomain can set or shadow it. Browsers treat http://127.0.0.1 and http://localhost as
 * secure, so local development needs no TLS.
 */
export const SESSION_COOKIE_NAME = '__Host-console_session';

const ATTRIBUTES = 'Path=/; Secure; HttpOnly; SameSite=Strict';

/** A browser-session cookie: the server decides when it ends (idle and absolute expiry). */
export function sessionCookie(value: string): string {
  return `${SESSION_COOKIE_NAME}=${value}; ${ATTRIBUTES}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE_NAME}=; ${ATTRIBUTES}; Max-Age=0`;
}

const SESSION_VALUE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The session value of a Cookie header, if it carries a well-formed one. Read by hand: the one
 * cookie has a fixed name and a base64url value, and no cookie library is a dependency of the
 * workspace (a whole parser for one name=value pair would add nothing).
 */
export function sessionValueOf(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const pair of cookieHeader.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== SESSION_COOKIE_NAME) continue;
    const value = pair.slice(separator + 1).trim();
    if (SESSION_VALUE_PATTERN.test(value)) return value;
  }
  return null;
}
