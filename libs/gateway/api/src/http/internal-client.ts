import { Logger } from '@nestjs/common';
import { DomainError, isErrorCode } from '@mp/shared-util-errors';

/**
 * A service's internal HTTP API as the gateway calls it. 4xx answers with a known error code
 * come back as that DomainError; anything else (timeouts, 5xx, refused connections) is 503,
 * which merchants may retry.
 */
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
    let response: Response;
    try {
      const isRaw = Buffer.isBuffer(body);
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { ...(body !== undefined && !isRaw ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : isRaw ? (body as Buffer) : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      this.logger.warn(`${method} ${path} failed: ${String(error)}`);
      throw new DomainError('SERVICE_UNAVAILABLE', `The ${this.service} service is not reachable; retry shortly`);
    }
    const payload = (await response.json().catch(() => null)) as { code?: unknown; message?: unknown; details?: unknown } | null;
    if (response.ok) return payload as T;
    if (response.status < 500 && isErrorCode(payload?.code)) {
      throw new DomainError(payload.code, String(payload.message ?? payload.code), Array.isArray(payload.details) ? payload.details : []);
    }
    this.logger.warn(`${method} ${path} answered ${response.status}`);
    throw new DomainError('SERVICE_UNAVAILABLE', `The ${this.service} service could not answer; retry shortly`);
  }

  /** Raw bytes, e.g. a receipt file, with its content type. */
  async download(path: string): Promise<{ contentType: string; disposition: string | null; content: Buffer }> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch {
      throw new DomainError('SERVICE_UNAVAILABLE', `The ${this.service} service is not reachable; retry shortly`);
    }
    if (response.status === 404) throw new DomainError('NOT_FOUND', 'No such file');
    if (!response.ok) throw new DomainError('SERVICE_UNAVAILABLE', `The ${this.service} service could not answer; retry shortly`);
    return { contentType: response.headers.get('content-type') ?? 'application/octet-stream', disposition: response.headers.get('content-disposition'), content: Buffer.from(await response.arrayBuffer()) };
  }
}
