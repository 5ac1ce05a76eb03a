import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** One year. No includeSubDomains or preload: the gateway cannot speak for hosts it does not serve. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/**
 * The headers on every gateway response, success or error:
 * - `Cache-Control: no-store`: some answers carry secrets (merchant creation, tokens) and all
 *   carry one merchant's data, which no shared or browser cache may keep;
 * - `X-Content-Type-Options: nosniff`: a JSON error or a receipt file is never run as a script;
 * - `Strict-Transport-Security` only when the request came over TLS: HSTS on a plain HTTP answer
 *   is ignored by browsers (RFC 6797 section 8.1), and promising HTTPS for a host served over
 *   plain HTTP would lock its users out.
 */
export function securityHeadersFor(overTls: boolean): Record<string, string> {
  return {
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(overTls ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
  };
}

/** A proxy address as GATEWAY_TRUSTED_PROXIES lists it: an IPv4 or IPv6 address, or a CIDR range of either. */
export function isTrustedProxyEntry(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/** What the rule needs to know of a request: Node's own request object, before any framework. */
export interface RawRequestLike {
  headers: IncomingHttpHeaders;
  socket: { remoteAddress?: string; encrypted?: boolean } | null;
}

/**
 * Decides whether a request came over TLS: the gateway's own socket is TLS, or its direct peer
 * is one of the trusted reverse proxies and says `X-Forwarded-Proto: https`. Anyone else's
 * `X-Forwarded-Proto` is ignored, so a client cannot talk the gateway into a false answer.
 * Of several `X-Forwarded-Proto` values the last counts: it is the one the nearest proxy added.
 *
 * Hand-written rather than Fastify's `trustProxy`, because Fastify builds the request it hands
 * to `frameworkErrors` (an undecodable path) without the trust-proxy rules, and every answer
 * must follow the same one. Matching uses Node's own BlockList.
 */
export class TransportSecurityRule {
  private readonly proxies = new BlockList();
  private readonly anyProxy: boolean;

  constructor(trustedProxies: readonly string[] = []) {
    for (const entry of trustedProxies) {
      if (!isTrustedProxyEntry(entry)) throw new Error(`not an IP address or CIDR range: ${entry}`);
      const [address, prefix] = entry.split('/');
      const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) this.proxies.addAddress(address, type);
      else this.proxies.addSubnet(address, Number(prefix), type);
    }
    this.anyProxy = trustedProxies.length > 0;
  }

  cameOverTls(request: RawRequestLike): boolean {
    if (request.socket?.encrypted === true) return true;
    if (!this.anyProxy || !this.isTrustedPeer(request.socket?.remoteAddress)) return false;
    const forwarded = request.headers['x-forwarded-proto'];
    const values = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',');
    return values[values.length - 1].trim().toLowerCase() === 'https';
  }

  /** Whether `remoteAddress` is one of GATEWAY_TRUSTED_PROXIES (also used to read X-Forwarded-For). */
  isTrustedPeer(remoteAddress: string | undefined): boolean {
    if (!remoteAddress) return false;
    // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d; IPv4 entries must match it.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
    if (mapped) return this.proxies.check(mapped[1], 'ipv4') || this.proxies.check(remoteAddress, 'ipv6');
    return this.proxies.check(remoteAddress, isIP(remoteAddress) === 4 ? 'ipv4' : 'ipv6');
  }
}
