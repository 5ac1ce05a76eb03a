import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { freePort } from './system-under-test';

/** One request the receiver got, as it arrived. */
export interface ReceivedCallback {
  method: string;
  /** The request's path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When its body had arrived (Date.now()). */
  receivedAtMs: number;
  /** Of the receiver's `secrets` (at arrival), those whose Standard Webhooks signature verifies the callback. */
  verifiedWith: string[];
}

export interface CallbackBodyShape {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown> & { version: number };
}

/** What the receiver answers one request: after `delayMs` when set; `sent` learns whether the sender was still there to get it. */
export interface ReceiverAnswer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  sent?: (delivered: boolean) => void;
}

export interface CallbackReceiverOptions {
  /** The merchant's webhook secrets: each callback is verified with every one (the list may grow later). Without them nothing is verified. */
  secrets?: string[];
  /**
   * The answer to request number `requestNumber` (1-based). By default: `status` (200, settable),
   * or 400 when the receiver has secrets and none of them verifies the callback.
   */
  answer?: (requestNumber: number, callback: ReceivedCallback) => ReceiverAnswer;
  /** The loopback address to listen on. */
  host?: string;
  /** False: `received` stays empty (a long run that reads each callback in `answer` keeps no copies). */
  keepReceived?: boolean;
}

/**
 * The tests' one callback sink: a merchant's receiver on a loopback address and a free port that
 * records every request (and, given secrets, which of them verify it) and answers as told. The
 * end-to-end tests, the dispatcher's integration tests, the benchmark and the chaos run each read
 * what they need of it.
 */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  /** The answer's status while no `answer` is given (a test may change it between callbacks). */
  status = 200;
  /** Connections accepted so far. */
  connections = 0;
  /** Most requests this receiver had open at once. */
  maxConcurrent = 0;
  readonly secrets: string[];
  readonly host: string;
  private open = 0;
  private requests = 0;
  private readonly keepReceived: boolean;
  private readonly delayed = new Set<NodeJS.Timeout>();
  private readonly answer: (requestNumber: number, callback: ReceivedCallback) => ReceiverAnswer;

  private constructor(
    private readonly server: Server,
    options: CallbackReceiverOptions,
  ) {
    this.secrets = options.secrets ?? [];
    this.host = options.host ?? '127.0.0.1';
    this.keepReceived = options.keepReceived ?? true;
    const verifying = options.secrets !== undefined;
    this.answer = options.answer ?? ((_n, callback) => ({ status: verifying && callback.verifiedWith.length === 0 ? 400 : this.status }));
  }

  static async start(options: CallbackReceiverOptions = {}): Promise<CallbackReceiver> {
    const server = createServer();
    const receiver = new CallbackReceiver(server, options);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      receiver.open += 1;
      receiver.maxConcurrent = Math.max(receiver.maxConcurrent, receiver.open);
      response.on('close', () => (receiver.open -= 1));
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const callback: ReceivedCallback = {
          method: request.method ?? 'GET',
          url: request.url ?? '/',
          headers: request.headers,
          body,
          receivedAtMs: Date.now(),
          verifiedWith: receiver.verifiedWith(body, request.headers),
        };
        receiver.requests += 1;
        if (receiver.keepReceived) receiver.received.push(callback);
        const answer = receiver.answer(receiver.requests, callback);
        const send = () => {
          const delivered = !response.destroyed && !response.socket?.destroyed;
          if (delivered) response.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
          answer.sent?.(delivered);
        };
        if (!answer.delayMs) return send();
        const timer = setTimeout(() => {
          receiver.delayed.delete(timer);
          send();
        }, answer.delayMs);
        timer.unref();
        receiver.delayed.add(timer);
      });
    });
    server.on('connection', () => (receiver.connections += 1));
    await listenOnOwnPort(server, receiver.host);
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/callbacks'): string {
    return `http://${this.host}:${this.port}${path}`;
  }

  /** The bodies received, parsed as callbacks. */
  bodies<Data extends Record<string, unknown> = { order_id: string }>(): Array<CallbackBodyShape & { data: Data & { version: number } }> {
    return this.received.map((callback) => JSON.parse(callback.body));
  }

  /** Closes every connection; answers still delayed are never sent. */
  async stop(): Promise<void> {
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private verifiedWith(body: string, headers: IncomingHttpHeaders): string[] {
    return this.secrets.filter((secret) => {
      try {
        new Webhook(secret).verify(body, headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    });
  }
}

/**
 * Listens on a port of this jest worker's own share (freePort), never `listen(0)`: the kernel
 * would hand out a port another worker's freePort had just chosen for a service still starting,
 * which then fails with EADDRINUSE while its health probe lands here as an empty request. A port
 * taken meanwhile by anything else is skipped for the next one.
 */
async function listenOnOwnPort(server: Server, host: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw error;
    }
  }
}
