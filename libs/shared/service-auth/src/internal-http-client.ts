import { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { outgoingTraceHeaders } from '@mp/shared-telemetry';
import { DomainError, readInternalErrorBody } from '@mp/shared-util-errors';
import { Agent, request, type Dispatcher } from 'undici';
import type { ServiceAuthorization } from './service-auth.module';
import type { ServiceActor } from './service-token';

type Method = 'GET' | 'POST' | 'PUT';

export interface InternalHttpClientOptions {
  /** The callee as logs and errors name it (`ledger` → "The ledger service is not reachable"). */
  service: string;
  /** The callee's internal URL (`*_INTERNAL_URL`), without a trailing slash. */
  baseUrl: string;
  /** Bounds the wait for the answer's headers and each pause within its body. */
  timeoutMs: number;
  /** The caller's service token for the callee (authorizationFor(issuer, callee)). */
  authorization: ServiceAuthorization;
  /** Rewrites a path for the log: paths that carry a credential (the payer-page token) must not reach a log line. */
  loggablePath?: (path: string) => string;
  /** Keep-alive connections to the callee (default 64). */
  connections?: number;
}

export interface CallOptions {
  /** JSON, or bytes and streams sent as they are. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The operator or agent whose action the call is, named in the service token. */
  actor?: ServiceActor | null;
}

/** An answer with its status, whatever the status: the body parsed as JSON, null when there is none or it is not JSON. */
export interface InternalAnswer<T> {
  status: number;
  body: T | null;
}

/** The call got no answer: refused connection, timeout, a token that could not be issued. */
export class InternalCallFailed extends Error {
  constructor(service: string, cause: unknown) {
    super(`the ${service} service did not answer: ${String(cause)}`, { cause });
    this.name = 'InternalCallFailed';
  }
}

type Response = Dispatcher.ResponseData;
const ok = (status: number) => status >= 200 && status < 300;
const headerOf = (response: Response, name: string): string | null => {
  const value = response.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
};
const jsonOrNull = async <T>(response: Response): Promise<T | null> => (await response.body.json().catch(() => null)) as T | null;

/**
 * The one client for calls between services: a keep-alive pool (undici's request API, not the
 * global fetch, whose streams and Response objects cost the gateway a sixth of its CPU in the
 * benchmark's profile), the caller's service token on every call, the running trace's
 * `traceparent`, a timeout, and one reading of the internal error body (readInternalErrorBody).
 *
 * Two ways to read an answer:
 * - `call` hands back every status and throws only InternalCallFailed when there was no answer,
 *   for callers with their own reading of statuses (holds, the orphan-hold sweeper, the webhook profile);
 * - `request`, `exchange`, `stream` and `download` answer the way a merchant-facing call must: a
 *   4xx with a known error code is that DomainError; anything else (no answer, 5xx, a refused
 *   service token, which is the platform's misconfiguration) is SERVICE_UNAVAILABLE, which
 *   merchants may retry, and a warning.
 */
export class InternalHttpClient {
  private readonly logger: Logger;
  private readonly dispatcher: Agent;
  private readonly loggablePath: (path: string) => string;

  constructor(private readonly options: InternalHttpClientOptions) {
    this.logger = new Logger(`${options.service}Client`);
    this.dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: options.connections ?? 64 });
    this.loggablePath = options.loggablePath ?? ((path) => path);
  }

  async call<T>(method: Method, path: string, options: CallOptions = {}): Promise<InternalAnswer<T>> {
    const response = await this.send(method, path, options);
    return { status: response.statusCode, body: await jsonOrNull<T>(response) };
  }

  async request<T>(method: Method, path: string, body?: unknown, headers: Record<string, string> = {}, actor: ServiceActor | null = null): Promise<T> {
    return (await this.exchange<T>(method, path, body, headers, actor)).body;
  }

  /** Like `request`, keeping the success status: some answers differ only by it (201 booked now, 200 a repeat). */
  async exchange<T>(
    method: Method,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    actor: ServiceActor | null = null,
  ): Promise<{ status: number; body: T }> {
    const response = await this.sendOrUnavailable(method, path, { body, headers, actor });
    const payload = await jsonOrNull<T>(response);
    if (ok(response.statusCode)) return { status: response.statusCode, body: payload as T };
    throw this.failure(method, path, response.statusCode, payload);
  }

  /** A long answer (an export) as a stream, so the caller never holds it whole; errors as in `request`. */
  async stream(path: string, actor: ServiceActor | null = null): Promise<{ contentType: string; disposition: string | null; content: Readable }> {
    const response = await this.sendOrUnavailable('GET', path, { actor });
    if (!ok(response.statusCode)) throw this.failure('GET', path, response.statusCode, await jsonOrNull(response));
    return {
      contentType: headerOf(response, 'content-type') ?? 'application/octet-stream',
      disposition: headerOf(response, 'content-disposition'),
      content: response.body,
    };
  }

  /** Raw bytes, e.g. a receipt file, with its content type. */
  async download(path: string): Promise<{ contentType: string; disposition: string | null; content: Buffer }> {
    const response = await this.sendOrUnavailable('GET', path, {});
    if (response.statusCode === 404) {
      await response.body.dump();
      throw new DomainError('NOT_FOUND', 'No such file');
    }
    if (!ok(response.statusCode)) {
      await response.body.dump();
      throw this.failure('GET', path, response.statusCode, null);
    }
    return {
      contentType: headerOf(response, 'content-type') ?? 'application/octet-stream',
      disposition: headerOf(response, 'content-disposition'),
      content: Buffer.from(await response.body.arrayBuffer()),
    };
  }

  private async send(method: Method, path: string, { body, headers = {}, actor = null }: CallOptions): Promise<Response> {
    try {
      const authorization = await this.options.authorization(actor);
      // Bytes and streams (a receipt on its way) go as they are; anything else as JSON.
      const isRaw = Buffer.isBuffer(body) || body instanceof Readable;
      return await request(`${this.options.baseUrl}${path}`, {
        dispatcher: this.dispatcher,
        method,
        headers: { ...(body !== undefined && !isRaw ? { 'content-type': 'application/json' } : {}), ...outgoingTraceHeaders(), ...headers, authorization },
        body: body === undefined ? undefined : isRaw ? (body as Buffer | Readable) : JSON.stringify(body),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
    } catch (error) {
      throw new InternalCallFailed(this.options.service, error);
    }
  }

  private async sendOrUnavailable(method: Method, path: string, options: CallOptions): Promise<Response> {
    try {
      return await this.send(method, path, options);
    } catch (failure) {
      const error = (failure as Error).cause;
      // A body streamed through a limit fails with the client's error (413), not the service's.
      const clientError = [error, (error as { cause?: unknown })?.cause].find((candidate) => candidate instanceof DomainError);
      if (clientError) throw clientError;
      this.logger.warn(`${method} ${this.loggablePath(path)} failed: ${String(error)}`);
      throw new DomainError('SERVICE_UNAVAILABLE', `The ${this.options.service} service is not reachable; retry shortly`);
    }
  }

  private failure(method: string, path: string, status: number, payload: unknown): DomainError {
    const known = status < 500 && status !== 401 ? readInternalErrorBody(payload) : null;
    if (known) return known;
    this.logger.warn(`${method} ${this.loggablePath(path)} answered ${status}`);
    return new DomainError('SERVICE_UNAVAILABLE', `The ${this.options.service} service could not answer; retry shortly`);
  }
}

/**
 * The optional cache of a client's answers: each key's value is kept `ttlMs`, and the whole cache
 * is dropped when it holds more than `maxEntries` (memory stays bounded). Gets of one key while
 * its load is in flight wait for that load instead of starting their own, so a burst of
 * callbacks to a merchant not cached yet costs one call, and a get made early (its answer
 * unused) starts the load that a later get joins. A load that fails is not kept: the next get
 * tries again.
 * Hand-written: it is a dozen lines over a Map, and the loads' failures must not be cached,
 * which is all a library would add.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAtMs: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value, or `load`'s (the one in flight for this key, if any), which is then cached; `fresh` skips both. */
  get(key: string, load: () => Promise<V>, { fresh = false }: { fresh?: boolean } = {}): Promise<V> {
    const cached = this.entries.get(key);
    if (!fresh && cached && cached.expiresAtMs > Date.now()) return Promise.resolve(cached.value);
    const inFlight = this.loading.get(key);
    if (!fresh && inFlight) return inFlight;
    const loaded = load().then(
      (value) => {
        if (this.loading.get(key) === loaded) this.loading.delete(key);
        if (this.entries.size > this.maxEntries) this.entries.clear();
        this.entries.set(key, { value, expiresAtMs: Date.now() + this.ttlMs });
        return value;
      },
      (error: unknown) => {
        if (this.loading.get(key) === loaded) this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, loaded);
    return loaded;
  }
}
