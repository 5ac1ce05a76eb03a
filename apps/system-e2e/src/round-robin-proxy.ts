import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What a Kubernetes Service is to a rolling update, for tests: requests go round-robin to the
 * replicas currently listed, a replica is taken out of the list before it is stopped and put
 * back once it is ready. Written with node:http because the repository has no HTTP proxy
 * library, and forwarding one request at a time is a few lines.
 *
 * Each forwarded request opens its own connection (no keep-alive pool): a pooled idle
 * connection to a replica that is shutting down would fail the next request sent on it, which
 * is the proxy's fault, not the replica's.
 *
 * `remove` resolves only once every request already sent to that replica has its answer's
 * head. That is what the preStop pause in deploy/k8s/base/graceful-stop.patch.yaml buys a
 * real rollout: a connection the proxy opened just before the removal may still sit in the
 * replica's accept queue, and a SIGTERM at that instant closes the listener over it (a reset,
 * which the proxy would report as a failure of the replica).
 */
export class RoundRobinProxy {
  private readonly upstreams: URL[] = [];
  private next = 0;
  private server!: Server;
  /** Per replica origin: the requests forwarded to it that have no answer head yet. */
  private readonly awaitingAnswer = new Map<string, Set<Promise<void>>>();
  /** Requests that reached no replica (none listed, or the connection failed), for the test to assert on. */
  readonly failures: string[] = [];

  async start(): Promise<this> {
    this.server = createServer((incoming, outgoing) => {
      const upstream = this.upstreams[this.next++ % Math.max(this.upstreams.length, 1)];
      if (!upstream) {
        this.failures.push(`${incoming.method} ${incoming.url}: no replica listed`);
        outgoing.writeHead(502).end();
        return;
      }
      const settle = this.trackUntilAnswered(upstream.origin);
      const proxied = forward(
        { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers, agent: false },
        (answer) => {
          settle();
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      proxied.on('error', (error) => {
        settle();
        this.failures.push(`${incoming.method} ${incoming.url} via ${upstream.host}: ${error.message}`);
        if (!outgoing.headersSent) outgoing.writeHead(502);
        outgoing.end();
      });
      incoming.pipe(proxied);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  add(url: string): void {
    this.upstreams.push(new URL(url));
  }

  /** Takes the replica out of the list, then waits for the answers to what was already sent to it. */
  async remove(url: string): Promise<void> {
    const origin = new URL(url).origin;
    const index = this.upstreams.findIndex((upstream) => upstream.origin === origin);
    if (index >= 0) this.upstreams.splice(index, 1);
    await Promise.all([...(this.awaitingAnswer.get(origin) ?? [])]);
  }

  /** Registers a request sent to `origin`; the returned function marks it answered (or failed). */
  private trackUntilAnswered(origin: string): () => void {
    let answered!: () => void;
    const pending = new Promise<void>((resolve) => (answered = resolve));
    const inFlight = this.awaitingAnswer.get(origin) ?? new Set<Promise<void>>();
    this.awaitingAnswer.set(origin, inFlight.add(pending));
    return () => {
      inFlight.delete(pending);
      answered();
    };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
