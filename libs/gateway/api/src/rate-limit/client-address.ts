import { isIP } from 'node:net';
import type { RawRequestLike, TransportSecurityRule } from '../http/transport-security';

/**
 * The address a per-address limit counts: the socket's peer, unless that peer is one of
 * GATEWAY_TRUSTED_PROXIES, in which case X-Forwarded-For is read from the right (each proxy
 * appends the address it saw) past every trusted proxy, and the first address that is not one is
 * the client. Entries left of it were written by the client and are never believed, so a client
 * cannot pick its own bucket. An unparseable entry stops the walk at the hop that wrote it.
 */
export function clientAddressOf(request: RawRequestLike, proxies: TransportSecurityRule): string {
  const peer = normalise(request.socket?.remoteAddress ?? 'unknown');
  if (!proxies.isTrustedPeer(peer)) return peer;
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((hop) => normalise(hop.trim())).filter((hop) => hop !== '');
  let client = peer;
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = hops[index];
    if (isIP(hop) === 0) return client;
    client = hop;
    if (!proxies.isTrustedPeer(hop)) return hop;
  }
  return client;
}

/** An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d: one client, one bucket. */
function normalise(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}
