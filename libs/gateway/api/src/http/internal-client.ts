import { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import type { ServiceActor, ServiceAuthorization } from '@mp/shared-service-auth';
import { outgoingTraceHeaders } from '@mp/shared-telemetry';
import { DomainError, isErrorCode } from '@mp/shared-util-errors';
import { Agent, request, type Dispatcher } from 'undici';

/** The platform error body `{code, message, details}` as a service may have sent it. */
type ErrorPayload = { code?: unknown; message?: unknown; details?: unknown } | null;

/** An answer's status, headers and body stream (undici's, a Node Readable). */
type InternalResponse = Dispatcher.ResponseData;

const ok = (response: InternalResponse) => response.statusCode >= 200 && response.statusCode < 300;
const headerOf = (response: InternalResponse, name: string): string | null => {
  const value = response.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
};
const jsonOrNull = async (response: InternalResponse): Promise<ErrorPayload> => (await response.body.json().catch(() => null)) as ErrorPayload;

/**
 * A service's internal HTTP API as the gateway calls it. 4xx answers with a known error code
 * come back as that DomainError; anything else (timeouts, 5xx, refused connections) is 503,
 * which merchants may retry. Every call carries the gateway's service token for that service,
 * naming the operator or agent when the call is their action; a refusal of the token itself
 * (401) is the platform's misconfiguration, never the client's: 503 and a warning.
 */
export class InternalClient {
  private readonly logger: Logger;
  /**
   * undici's own request API on a keep-alive pool, not the global `fetch`: every merchant request
   * makes one of these calls, and fetch's WHATWG streams, abort signals and Response objects were
   * a sixth of the gateway's CPU in the benchmark's profile.
   */
  private readonly dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

  constructor(
    private readonly service: string,
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly authorization: ServiceAuthorization,
    /** Rewrites a path for the log: paths that carry a credential (the payer-page token) must not reach a log line. */
    private readonly loggablePath: (path: string) => string = (path) => path,
  ) {
    this.logger = new Logger(`${service}Client`);
  }

  async request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, headers: Record<string, string> = {}, actor: ServiceActor | null = null): Promise<T> {
    return (await this.exchange<T>(method, path, body, headers, actor)).body;
  }

  /** Like `request`, keeping the success status: some answers differ only by it (201 booked now, 200 a repeat). */
  async exchange<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, headers: Record<string, string> = {}, actor: ServiceActor | null = null): Promise<{ status: number; body: T }> {
    const response = await this.send(method, path, body, headers, actor);
    const payload = await jsonOrNull(response);
    if (ok(response)) return { status: response.statusCode, body: payload as T };
    throw this.failure(method, path, response.statusCode, payload);
  }

  /** A long answer (an export) as a stream, so the gateway never holds it whole; errors as in `request`. */
  async stream(path: string, actor: ServiceActor | null = null): Promise<{ contentType: string; disposition: string | null; content: Readable }> {
    const response = await this.send('GET', path, undefined, {}, actor);
    if (!ok(response)) throw this.failure('GET', path, response.statusCode, await jsonOrNull(response));
    return {
      contentType: headerOf(response, 'content-type') ?? 'application/octet-stream',
      disposition: headerOf(response, 'content-disposition'),
      content: response.body,
    };
  }

  /**
   * The timeout bounds the wait for the answer's headers and each pause within its body: an
   * export streams for as long as it has rows, but a service that stops answering is
   * unavailable either way.
   */
  private async send(method: 'GET' | 'POST' | 'PUT', path: string, body: unknown, headers: Record<string, string>, actor: ServiceActor | null): Promise<InternalResponse> {
    try {
      const authorization = await this.authorization(actor);
      // Bytes and streams (a receipt on its way) go as they are; anything else as JSON.
      const isRaw = Buffer.isBuffer(body) || body instanceof Readable;
      return await request(`${this.baseUrl}${path}`, {
        dispatcher: this.dispatcher,
        method,
        headers: { ...(body !== undefined && !isRaw ? { 'content-type': 'application/json' } : {}), ...outgoingTraceHeaders(), ...headers, authorization },
        body: body === undefined ? undefined : isRaw ? (body as Buffer | Readable) : JSON.stringify(body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (error) {
      // A body streamed through a limit fails with the client's error (413), not the service's.
      const clientError = [error, (error as { cause?: unknown })?.cause].find((candidate) => candidate instanceof DomainError);
      if (clientError) throw clientError;
      this.logger.warn(`${method} ${this.loggablePath(path)} failed: ${String(error)}`);
      throw new DomainError('SERVICE_UNAVAILABLE', `The ${this.service} service is not reachable; retry shortly`);
    }
  }

  private failure(method: string, path: string, status: number, payload: ErrorPayload): DomainError {
    if (status < 500 && status !== 401 && isErrorCode(payload?.code)) {
      return new DomainError(payload.code, String(payload.message ?? payload.code), Array.isArray(payload.details) ? payload.details : []);
    }
    this.logger.warn(`${method} ${this.loggablePath(path)} answered ${status}`);
    return new DomainError('SERVICE_UNAVAILABLE', `The ${this.service} service could not answer; retry shortly`);
  }

  /** Raw bytes, e.g. a receipt file, with its content type. */
  async download(path: string): Promise<{ contentType: string; disposition: string | null; content: Buffer }> {
    const response = await this.send('GET', path, undefined, {}, null);
    if (response.statusCode === 404) {
      await response.body.dump();
      throw new DomainError('NOT_FOUND', 'No such file');
    }
    if (!ok(response)) {
      await response.body.dump();
      throw this.failure('GET', path, response.statusCode, null);
    }
    return { contentType: headerOf(response, 'content-type') ?? 'application/octet-stream', disposition: headerOf(response, 'content-disposition'), content: Buffer.from(await response.body.arrayBuffer()) };
  }
}
