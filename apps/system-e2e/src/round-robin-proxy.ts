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
 */
export class RoundRobinProxy {
  private readonly upstreams: URL[] = [];
  private next = 0;
  private server!: Server;
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
      const proxied = forward(
        { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers, agent: false },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      proxied.on('error', (error) => {
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

  remove(url: string): void {
    const index = this.upstreams.findIndex((upstream) => upstream.origin === new URL(url).origin);
    if (index >= 0) this.upstreams.splice(index, 1);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
