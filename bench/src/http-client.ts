import { Agent, request } from 'node:http';
import { signatureHeaders } from '@mp/merchant-sdk/signing';

export interface MerchantCredentials {
  merchantId: string;
  apiSecret: string;
}

export interface HttpAnswer {
  status: number;
  body: Buffer;
  /** The Location header of a redirect, when there is one. */
  location?: string;
}

/**
 * The generator's HTTP client: node's http with a keep-alive agent (no new connection per
 * request), answers read whole. Signing happens here, at send time, so a request queued
 * behind others never goes out with a stale timestamp.
 */
export class LoadClient {
  private readonly agent: Agent;
  private readonly url: URL;

  constructor(baseUrl: string, maxSockets = 256) {
    this.url = new URL(baseUrl);
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'fifo' });
  }

  send(method: string, path: string, headers: Record<string, string>, body?: Buffer, timeoutMs = 30_000): Promise<HttpAnswer> {
    return new Promise((resolve) => {
      const outgoing = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          method,
          path,
          agent: this.agent,
          headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
          timeout: timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), location: response.headers.location }));
          response.on('error', () => resolve({ status: 0, body: Buffer.alloc(0) }));
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
      outgoing.on('error', () => resolve({ status: 0, body: Buffer.alloc(0) }));
      outgoing.end(body);
    });
  }

  /** A merchant request signed now, with the merchant SDK's signer. */
  sendSigned(merchant: MerchantCredentials, method: 'GET' | 'POST', path: string, body?: object): Promise<HttpAnswer> {
    const bytes = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...signatureHeaders(merchant.merchantId, merchant.apiSecret, path, bytes ?? Buffer.alloc(0)),
      ...(bytes ? { 'content-type': 'application/json' } : {}),
    };
    return this.send(method, path, headers, bytes);
  }

  close(): void {
    this.agent.destroy();
  }
}

export function jsonOf<T = any>(answer: HttpAnswer): T | undefined {
  try {
    return JSON.parse(answer.body.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}
