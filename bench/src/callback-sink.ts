import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The merchants' callback receiver inside the generator (issue 21): an HTTP server on 127.0.0.1
 * that answers 200 at once and notes, per callback, when it first arrived (performance.now(),
 * the open loop's clock), so the time from an API call to its callback is measured on one
 * clock. The dispatcher reaches it because the benchmark's system allows http callback URLs on
 * loopback (ALLOW_HTTP_CALLBACK_URLS in the gateway, the test system's dispatcher allow-list).
 * Signatures are not verified here (the e2e tests do that); a callback without one is counted.
 */
export class CallbackSink {
  /** `type order-or-dispute-id` → first arrival. */
  readonly firstArrival = new Map<string, number>();
  readonly countsByType = new Map<string, number>();
  duplicates = 0;
  unsigned = 0;
  unreadable = 0;
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const arrivedAt = performance.now();
        response.writeHead(200).end();
        if (!request.headers['webhook-signature']) this.unsigned += 1;
        const key = callbackKey(Buffer.concat(chunks).toString('utf8'));
        if (key === null) {
          this.unreadable += 1;
          return;
        }
        this.countsByType.set(key.type, (this.countsByType.get(key.type) ?? 0) + 1);
        if (this.firstArrival.has(key.key)) this.duplicates += 1;
        else this.firstArrival.set(key.key, arrivedAt);
      });
    });
    await new Promise<void>((resolve) => (this.server as Server).listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${((this.server as Server).address() as AddressInfo).port}/callbacks`;
  }

  /** Resolves when every key has arrived or `timeoutMs` passed; returns when it stopped waiting. */
  async waitFor(keys: readonly string[], timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    while (keys.some((key) => !this.firstArrival.has(key)) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return performance.now();
  }

  describe(): string {
    const types = [...this.countsByType].map(([type, count]) => `${type} ${count}`).join(', ') || 'none';
    return `callbacks received: ${types}; ${this.duplicates} repeated, ${this.unsigned} unsigned, ${this.unreadable} unreadable`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => (this.server as Server).close(resolve));
  }
}

/** The sink's key of a callback: its type and the id it is about (an order's, or a dispute's). */
export function sinkKey(type: string, id: string): string {
  return `${type} ${id}`;
}

function callbackKey(body: string): { type: string; key: string } | null {
  try {
    const parsed = JSON.parse(body) as { type?: string; data?: { order_id?: string; dispute_id?: string } };
    const id = parsed.data?.dispute_id ?? parsed.data?.order_id;
    return parsed.type && id ? { type: parsed.type, key: sinkKey(parsed.type, id) } : null;
  } catch {
    return null;
  }
}
