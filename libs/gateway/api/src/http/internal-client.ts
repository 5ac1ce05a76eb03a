import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { Logger } from '@nestjs/common';
import { DomainError, isErrorCode } from '@mp/shared-util-errors';

/**
 * A service's internal HTTP API as the gateway calls it. 4xx answers with a known error code
 * come back as that DomainError; anything else (timeouts, 5xx, refused connections) is 503,
 * which merchants may retry.
 */
/** The platform error body `{code, message, details}` as a service may have sent it. */
type ErrorPayload = { code?: unknown; message?: unknown; details?: unknown } | null;

export class InternalClient {
  private readonly logger: Logger;

  constructor(
    private readonly service: string,
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {
    this.logger = new Logger(`${service}Client`);
  }

  async request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    return (await this.exchange<T>(method, path, body, headers)).body;
  }

  /** Like `request`, keeping the success status: some answers differ only by it (201 booked now, 200 a repeat). */
  async exchange<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
    const response = await this.send(method, path, body, headers);
    const payload = (await response.json().catch(() => null)) as ErrorPayload;
    if (response.ok) return { status: response.status, body: payload as T };
    throw this.failure(method, path, response.status, payload);
  }

  /** A long answer (an export) as a stream, so the gateway never holds it whole; errors as in `request`. */
  async stream(path: string): Promise<{ contentType: string; disposition: string | null; content: Readable }> {
    const response = await this.send('GET', path, undefined, {}, true);
    if (!response.ok || !response.body) {
      throw this.failure('GET', path, response.status, (await response.json().catch(() => null)) as ErrorPayload);
    }
    return {
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      disposition: response.headers.get('content-disposition'),
      content: Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>),
    };
  }

  /**
   * The timeout covers the answer's headers, and its body too unless `bodyMayTakeLonger`: an
   * export streams for as long as it has rows, but a service that does not start answering
   * in time is unavailable either way.
   */
  private async send(method: 'GET' | 'POST' | 'PUT', path: string, body: unknown, headers: Record<string, string>, bodyMayTakeLonger = false): Promise<Response> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    // Unreferenced: an answer already read must not keep the process alive until the timer fires.
    timer.unref();
    try {
      const isRaw = Buffer.isBuffer(body);
      const response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { ...(body !== undefined && !isRaw ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : isRaw ? (body as Buffer) : JSON.stringify(body),
        signal: abort.signal,
      });
      if (bodyMayTakeLonger) clearTimeout(timer);
      return response;
    } catch (error) {
      clearTimeout(timer);
      this.logger.warn(`${method} ${path} failed: ${String(error)}`);
      throw new DomainError('SERVICE_UNAVAILABLE', `The ${this.service} service is not reachable; retry shortly`);
    }
  }

  private failure(method: string, path: string, status: number, payload: ErrorPayload): DomainError {
    if (status < 500 && isErrorCode(payload?.code)) {
      return new DomainError(payload.code, String(payload.message ?? payload.code), Array.isArray(payload.details) ? payload.details : []);
    }
    this.logger.warn(`${method} ${path} answered ${status}`);
    return new DomainError('SERVICE_UNAVAILABLE', `The ${this.service} service could not answer; retry shortly`);
  }

  /** Raw bytes, e.g. a receipt file, with its content type. */
  async download(path: string): Promise<{ contentType: string; disposition: string | null; content: Buffer }> {
    const response = await this.send('GET', path, undefined, {});
    if (response.status === 404) throw new DomainError('NOT_FOUND', 'No such file');
    if (!response.ok) throw this.failure('GET', path, response.status, null);
    return { contentType: response.headers.get('content-type') ?? 'application/octet-stream', disposition: response.headers.get('content-disposition'), content: Buffer.from(await response.arrayBuffer()) };
  }
}
