import { BlockList, isIP } from 'node:net';
import type { ConfigReader } from '@mp/shared-util-config';

/**
 * Where callbacks may go: the one rule the gateway applies when it accepts a callback URL (400
 * VALIDATION_ERROR) and the dispatcher applies again before every attempt (refused_destination),
 * so a URL accepted under an older rule, or a merchant's allow-list tightened since, never
 * reaches the network. The SSRF guard (private addresses) is the dispatcher's own, at connection time.
 */
export interface CallbackDestinationRules {
  /** ALLOW_HTTP_CALLBACK_URLS: development and tests only; production sends https only. */
  allowHttp: boolean;
  /** CALLBACK_ALLOWED_PORTS: inclusive ranges; the scheme's default port counts when the URL names none. */
  allowedPorts: ReadonlyArray<readonly [number, number]>;
}

export const DEFAULT_CALLBACK_ALLOWED_PORTS = '443,8443';

/** `443,8443` or `1024-65535`: ports and inclusive ranges. Throws with the offending entry. */
export function parseAllowedPorts(text: string): Array<[number, number]> {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(entry);
      const low = Number(match?.[1]);
      const high = match?.[2] === undefined ? low : Number(match[2]);
      if (!match || low < 1 || high > 65535 || low > high) throw new Error(`"${entry}" is not a port (1-65535) or a range of them`);
      return [low, high] as [number, number];
    });
}

/**
 * An entry of a merchant's callback allow-list: a host name (`shop.example`), a wildcard for its
 * subdomains (`*.shop.example`), an IP address or a CIDR range (matching URLs whose host is an
 * IP literal in it). Host names are compared as names, never resolved: the SSRF guard checks the
 * addresses at connection time.
 */
export function isAllowListEntry(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version !== 0) return rest.length === 0 && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128)));
  return entry.length <= 253 && /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(entry);
}

/** Why `url` may not receive callbacks, or null when it may. `allowList` empty: any host (the global rules still apply). */
export function callbackDestinationIssue(url: string, rules: CallbackDestinationRules, allowList: readonly string[] = []): string | null {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (target.protocol !== 'https:' && !(target.protocol === 'http:' && rules.allowHttp))
    return rules.allowHttp ? 'must use https:// or http://' : 'must use https://';
  const port = target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port);
  if (!rules.allowedPorts.some(([low, high]) => port >= low && port <= high))
    return `port ${port} is not allowed for callbacks (allowed: ${describePorts(rules.allowedPorts)})`;
  if (allowList.length > 0 && !hostAllowedBy(target.hostname, allowList)) return `host ${target.hostname} is not on this merchant's callback allow-list`;
  return null;
}

function hostAllowedBy(hostname: string, allowList: readonly string[]): boolean {
  const literal = hostname.replace(/^\[|\]$/g, '');
  const version = isIP(literal);
  if (version !== 0) {
    const ranges = new BlockList();
    for (const entry of allowList.filter((candidate) => isIP(candidate.split('/')[0]) !== 0)) {
      const [address, prefix] = entry.split('/');
      const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) ranges.addAddress(address, type);
      else ranges.addSubnet(address, Number(prefix), type);
    }
    return ranges.check(literal, version === 4 ? 'ipv4' : 'ipv6');
  }
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return allowList.some((entry) => (entry.startsWith('*.') ? name.endsWith(entry.slice(1)) : name === entry));
}

function describePorts(ranges: CallbackDestinationRules['allowedPorts']): string {
  return ranges.map(([low, high]) => (low === high ? String(low) : `${low}-${high}`)).join(', ');
}

/** ALLOW_HTTP_CALLBACK_URLS, read alike by the gateway (on acceptance) and the callback dispatcher (before each attempt). */
export function readAllowHttpCallbackUrls(reader: ConfigReader): boolean {
  return reader.boolean('ALLOW_HTTP_CALLBACK_URLS', false, {
    description: 'development and tests only: accept and send to `http://` callback URLs; unset in production',
  });
}

/** CALLBACK_ALLOWED_PORTS, read alike by the gateway and the callback dispatcher. */
export function readCallbackAllowedPorts(reader: ConfigReader): Array<[number, number]> {
  try {
    const ports = parseAllowedPorts(
      reader.string('CALLBACK_ALLOWED_PORTS', {
        default: DEFAULT_CALLBACK_ALLOWED_PORTS,
        description: 'ports (and ranges, `8000-8100`) a callback URL may name; checked on acceptance and before each attempt',
      }),
    );
    if (ports.length > 0) return ports;
    reader.problem('CALLBACK_ALLOWED_PORTS must list at least one port');
  } catch (error) {
    reader.problem(`CALLBACK_ALLOWED_PORTS: ${(error as Error).message}`);
  }
  return [];
}
