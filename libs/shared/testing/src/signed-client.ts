import { SIGNATURE_HEADERS, signatureOf, signedPath } from '@mp/merchant-sdk/signing';
import { merchantApiValidator } from './openapi-response-validator';

export interface MerchantCredentialsForTest {
  merchantId: string;
  apiSecret: string;
}

export interface SignedRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path as sent on the wire, percent-encoding included. */
  path: string;
  /** Sent byte for byte. An object is serialized with JSON.stringify first. */
  body?: string | Buffer | object;
  /** Overrides: signing time, signed path or body, and header values or their absence (null). */
  timestampSeconds?: number;
  signedPath?: string;
  signedBody?: string | Buffer;
  headers?: Record<string, string | null>;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/**
 * A merchant's HTTP client: signs every request with the merchant SDK's signer (the published
 * vectors in docs/api/signing-test-vectors.json hold it to the documented rule), with knobs to break it.
 */
export class SignedClient {
  constructor(
    private readonly baseUrl: string,
    readonly credentials: MerchantCredentialsForTest,
  ) {}

  async request<T = any>(request: SignedRequest): Promise<TestResponse<T>> {
    const bodyBytes = toBytes(request.body);
    const timestamp = String(request.timestampSeconds ?? Math.floor(Date.now() / 1000));
    const signedBody = request.signedBody === undefined ? bodyBytes : toBytes(request.signedBody);
    const signature = signatureOf(this.credentials.apiSecret, timestamp, request.signedPath ?? signedPath(request.path), signedBody);
    const headers: Record<string, string> = {
      accept: 'application/json',
      [SIGNATURE_HEADERS.apiKey]: this.credentials.merchantId,
      [SIGNATURE_HEADERS.timestamp]: timestamp,
      [SIGNATURE_HEADERS.signature]: signature,
      ...(bodyBytes.length > 0 ? { 'content-type': 'application/json' } : {}),
    };
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      if (value === null) delete headers[name];
      else headers[name] = value;
    }
    return rawRequest<T>(this.baseUrl, request.method, request.path, headers, bodyBytes);
  }

  post<T = any>(path: string, body: string | object): Promise<TestResponse<T>> {
    return this.request<T>({ method: 'POST', path, body });
  }

  get<T = any>(path: string): Promise<TestResponse<T>> {
    return this.request<T>({ method: 'GET', path });
  }
}

function toBytes(body: SignedRequest['body']): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(body)) return body;
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
}

/**
 * Sends a request without touching the path: fetch() would normalise `..` and encodings. Every
 * answer to a /v2 path is checked against the checked-in openapi.json (an undocumented status,
 * path or body shape fails the test that made the request).
 */
export async function rawRequest<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<TestResponse<T>> {
  const { request } = await import('node:http');
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body.length > 0 || method !== 'GET' ? { 'content-length': String(body.length) } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = undefined;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
          const status = response.statusCode ?? 0;
          try {
            merchantApiValidator().check({
              method,
              path,
              status,
              contentType: responseHeaders.get('content-type'),
              requestId: responseHeaders.get('x-request-id'),
              text,
            });
          } catch (error) {
            reject(error);
            return;
          }
          resolve({ status, headers: responseHeaders, text, body: parsed as T });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
