import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
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
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => normalise(hop.trim()))
    .filter((hop) => hop !== '');
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

/**
 * The bucket a per-address limit charges for a client address: the address itself for IPv4, and
 * its /64 network for IPv6. One IPv6 subscriber or host is routinely given a whole /64, so
 * counting each address apart would give one client 2^64 buckets; a /64 is what one client holds.
 */
export function addressBucketOf(address: string): string {
  if (isIP(address) !== 6) return address;
  const parts = ipaddr.IPv6.parse(address).toByteArray().slice(0, 8);
  const network = ipaddr.fromByteArray([...parts, 0, 0, 0, 0, 0, 0, 0, 0]);
  return `${network.toString()}/64`;
}
