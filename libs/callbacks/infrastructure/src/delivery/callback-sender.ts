import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TransportResult } from '@mp/callbacks-domain';
import { callbackDestinationIssue, type CallbackDestinationRules } from '@mp/contracts-callbacks';
import { DestinationGuard, RefusedDestinationError, type Lookup } from './ssrf-guard';

export interface SentAttempt {
  transport: TransportResult;
  latencyMs: number;
  /** The first bytes of the answer, as text. */
  excerpt: string | null;
  error: string | null;
}

const EXCERPT_BYTES = 512;

/**
 * Posts one callback. Plain node:http(s): redirects are never followed (3xx comes back as a
 * status), the SSRF guard's lookup is the socket's lookup, and one deadline covers connecting,
 * sending and reading the first bytes of the answer. No connection reuse: each attempt
 * resolves and checks the destination afresh.
 */
export class CallbackSender {
  constructor(
    private readonly guard: DestinationGuard,
    private readonly timeoutMs: number,
    /** The gateway's acceptance rule again (https only in production, CALLBACK_ALLOWED_PORTS), for URLs accepted before it changed. */
    private readonly rules: CallbackDestinationRules,
    private readonly lookup?: Lookup,
  ) {}

  /** `allowList`: the merchant's callback allow-list (empty: no restriction beyond the global rules). */
  async send(url: string, headers: Record<string, string>, body: string, allowList: readonly string[] = []): Promise<SentAttempt> {
    const started = performance.now();
    const finish = (transport: TransportResult, excerpt: string | null, error: string | null): SentAttempt => ({
      transport,
      latencyMs: Math.round(performance.now() - started),
      excerpt,
      error,
    });
    const target = parseTarget(url);
    if (typeof target === 'string') return finish({ kind: 'refused_destination' }, null, target);
    const ruleIssue = callbackDestinationIssue(url, this.rules, allowList);
    if (ruleIssue) return finish({ kind: 'refused_destination' }, null, ruleIssue);
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    const literalRefusal = /^[\d.]+$|:/.test(literal) ? this.guard.refusalOf(literal) : null;
    if (literalRefusal) return finish({ kind: 'refused_destination' }, null, literalRefusal);

    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await new Promise<IncomingMessage>((resolve, reject) => {
        const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
        const outgoing = send(target, {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body).toString(),
            'user-agent': 'merchant-payments-callbacks/1',
          },
          lookup: this.guard.checkedLookup(this.lookup),
          agent: false,
          signal,
        });
        outgoing.on('response', resolve);
        outgoing.on('error', reject);
        outgoing.end(body);
      });
      const excerpt = await readExcerpt(response, signal);
      return finish({ kind: 'response', status: response.statusCode ?? 0 }, excerpt, null);
    } catch (error) {
      if (error instanceof RefusedDestinationError) return finish({ kind: 'refused_destination' }, null, error.message);
      if (signal.aborted) return finish({ kind: 'timeout' }, null, `no answer within ${this.timeoutMs} ms`);
      return finish({ kind: 'network_error' }, null, error instanceof Error ? error.message : String(error));
    }
  }
}

/** One URL parser (WHATWG); only http(s), no user info (`https://good@evil/` tricks). */
function parseTarget(url: string): URL | string {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return `${url.slice(0, 100)} is not a URL`;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return `scheme ${target.protocol} is not allowed`;
  if (target.username || target.password) return 'URLs with user info are not allowed';
  return target;
}

async function readExcerpt(response: IncomingMessage, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= EXCERPT_BYTES || signal.aborted) break;
    }
  } catch {
    // The answer's status is what counts; a body cut short still gives an excerpt.
  } finally {
    response.destroy();
  }
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
}
