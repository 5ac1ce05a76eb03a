import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export type Lookup = typeof systemLookup;

/**
 * The SSRF guard, applied at connection time to the address actually connected to: a literal
 * IP in the URL is checked before connecting, a host name is checked on every address its DNS
 * lookup returns, in the lookup the socket uses, so DNS rebinding (a name that resolved to a
 * public address when checked and to 127.0.0.1 when connecting) cannot get through.
 *
 * Only public unicast addresses pass. The range classification is ipaddr.js's (the classifier
 * request-filtering-agent uses; that package is ESM-only, which this CommonJS build could not load
 * before Node 24, see docs/decisions/node-24-platform.md): loopback, private, link-local, CGNAT, multicast, unspecified,
 * reserved, IPv4-mapped IPv6, 6to4, Teredo and unique-local all fail. Unusual IPv4 notations
 * (`2130706433`, `0177.0.0.1`, `0x7f000001`) are normalised to dotted quads by the WHATWG URL
 * parser before they get here, and then fail as loopback.
 */
export class DestinationGuard {
  private readonly allowed: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

  /** `allowList`: IPs or CIDRs an operator explicitly allows although not public (tests: 127.0.0.1). */
  constructor(allowList: string[]) {
    this.allowed = allowList.map((entry) =>
      entry.includes('/')
        ? ipaddr.parseCIDR(entry)
        : (([address]) => [address, address.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number])([ipaddr.parse(entry)]),
    );
  }

  /** Why connecting to `address` is refused, or null when it is allowed. */
  refusalOf(address: string): string | null {
    if (!ipaddr.isValid(address) || isIP(address) === 0) return `${address} is not an IP address`;
    const parsed = ipaddr.parse(address);
    if (this.allowed.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits))) return null;
    const range = parsed.range();
    return range === 'unicast' ? null : `${address} is a ${range} address`;
  }

  /** A lookup for sockets that fails when any resolved address is refused. */
  checkedLookup(lookup: Lookup = systemLookup): Lookup {
    const checked = (
      hostname: string,
      options: LookupOptions,
      callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '');
        const list = addresses as LookupAddress[];
        for (const { address } of list) {
          const refusal = this.refusalOf(address);
          if (refusal) return callback(new RefusedDestinationError(`${hostname} resolves to ${address}: ${refusal}`), '');
        }
        if (options.all) return callback(null, list);
        const first = list[0];
        if (!first) return callback(new RefusedDestinationError(`${hostname} resolves to no address`), '');
        callback(null, first.address, first.family);
      });
    };
    return checked as unknown as Lookup;
  }
}

export class RefusedDestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedDestinationError';
  }
}
