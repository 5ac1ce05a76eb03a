/**
 * A TCP fault proxy for the chaos runner (docs/operations/chaos.md, "Network faults"): one
 * listener on loopback in front of one upstream (PostgreSQL, the Kafka broker, a service's
 * internal HTTP), forwarding bytes both ways, with faults switched on and off while the
 * connections live: added latency, every open connection dropped, new connections refused, and
 * a black hole.
 *
 * Written by hand on node:net because no library fits: Toxiproxy is a Go server (its npm
 * packages, toxiproxy-node-client and toxiproxy-node, are only HTTP clients for it) and cannot
 * be installed here; toxy fakes failures of HTTP requests, not of TCP streams such as
 * PostgreSQL's or Kafka's protocol; node-tcp-proxy and tcp-proxy.js only forward, with no way
 * to hold, delay or reset a connection. What is needed is small: a socket pair per connection
 * and an ordered queue per direction.
 */
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface ProxyUpstream {
  host: string;
  port: number;
}

/**
 * What the proxy does to traffic, switchable at any time:
 * - `pass-through`: forwards at once;
 * - `latency`: every chunk, in both directions, leaves `latencyMs` after it arrived (a chunk
 *   that arrived before the switch keeps the delay it arrived with);
 * - `refuse`: new connections are accepted and reset at once (the client sees ECONNRESET);
 *   open ones keep working;
 * - `black-hole`: nothing is forwarded, not even a new connection's first bytes, and nothing
 *   is answered; the bytes are held, in order, and delivered once the mode changes, as TCP
 *   retransmission would after a partition heals (the client's own timeouts decide meanwhile).
 */
export type ProxyMode = { kind: 'pass-through' } | { kind: 'latency'; latencyMs: number } | { kind: 'refuse' } | { kind: 'black-hole' };

export interface FaultProxyOptions {
  /** For logs and errors: `postgres`, `kafka`, `ledger-internal`. */
  name: string;
  /** Where connections go; a function is asked at each new connection (a service's port is known only once it started). */
  upstream: ProxyUpstream | (() => ProxyUpstream);
  /** 0 (default): any free port. */
  listenPort?: number;
}

export interface FaultProxyCounts {
  accepted: number;
  refused: number;
  dropped: number;
  open: number;
}

const PASS_THROUGH: ProxyMode = { kind: 'pass-through' };

export class FaultProxy {
  private currentMode: ProxyMode = PASS_THROUGH;
  private readonly connections = new Set<ProxiedConnection>();
  /** Set while black-holing: forwarding waits on it; released when the mode changes. */
  private hole: { opened: Promise<void>; release: () => void } | null = null;
  private readonly counts = { accepted: 0, refused: 0, dropped: 0 };

  private constructor(
    readonly name: string,
    private readonly server: Server,
    private readonly upstream: () => ProxyUpstream,
  ) {}

  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const { upstream } = options;
    // allowHalfOpen: a client that shuts down its sending side still gets the answer queued for it.
    const server = createServer({ allowHalfOpen: true, noDelay: true });
    const proxy = new FaultProxy(options.name, server, typeof upstream === 'function' ? upstream : () => upstream);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.listenPort ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** host:port, as KAFKA_BROKERS takes it. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  get mode(): ProxyMode {
    return this.currentMode;
  }

  setMode(mode: ProxyMode): void {
    if (mode.kind === 'latency' && !(Number.isFinite(mode.latencyMs) && mode.latencyMs >= 0))
      throw new Error(`${this.name} proxy: latencyMs must be a number ≥ 0, got ${mode.latencyMs}`);
    this.currentMode = mode;
    if (mode.kind === 'black-hole') {
      if (!this.hole) {
        const { promise: opened, resolve: release } = Promise.withResolvers<void>();
        this.hole = { opened, release };
      }
    } else if (this.hole) {
      const { release } = this.hole;
      this.hole = null;
      release();
    }
  }

  /** Destroys both sockets of every open connection (the client sees ECONNRESET); returns how many. */
  dropConnections(): number {
    const dropped = [...this.connections];
    for (const connection of dropped) connection.reset();
    this.counts.dropped += dropped.length;
    return dropped.length;
  }

  get openConnections(): number {
    return this.connections.size;
  }

  stats(): FaultProxyCounts {
    return { ...this.counts, open: this.connections.size };
  }

  /** Stops listening and closes every connection; held bytes are discarded. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of [...this.connections]) connection.destroy();
    this.setMode(PASS_THROUGH);
    await closed;
  }

  /** The delay a chunk arriving now gets. */
  latencyMs(): number {
    return this.currentMode.kind === 'latency' ? this.currentMode.latencyMs : 0;
  }

  /** Resolves at once, or, while black-holing, when the hole closes. */
  forwarding(): Promise<void> | null {
    return this.hole?.opened ?? null;
  }

  private accept(client: Socket): void {
    if (this.currentMode.kind === 'refuse') {
      this.counts.refused += 1;
      client.on('error', () => undefined); // The reset may surface as an error on our side too: it is the point.
      client.resetAndDestroy();
      return;
    }
    this.counts.accepted += 1;
    const connection = new ProxiedConnection(client, this);
    this.connections.add(connection);
    client.once('close', () => this.connections.delete(connection));
    void connection.open(this.upstream);
  }
}

/** A client socket and, once the proxy lets it through, its upstream socket: they live and die together. */
class ProxiedConnection {
  private upstream: Socket | null = null;
  private readonly toUpstream: DelayedPipe;

  constructor(
    private readonly client: Socket,
    private readonly proxy: FaultProxy,
  ) {
    // A clean close (both directions ended) travels through the pipes, after the bytes queued
    // before it; an error on either side ends both at once.
    client.on('error', () => this.destroy());
    client.once('close', (hadError) => hadError && this.destroy());
    // Bytes the client sends before the upstream is connected (or while black-holed) wait here.
    this.toUpstream = new DelayedPipe(client, proxy);
  }

  async open(upstreamAt: () => ProxyUpstream): Promise<void> {
    const hole = this.proxy.forwarding();
    if (hole) await hole; // A black hole answers no SYN: the upstream is not even dialled.
    if (this.client.destroyed) return;
    const { host, port } = upstreamAt();
    const upstream = createConnection({ host, port, allowHalfOpen: true, noDelay: true });
    this.upstream = upstream;
    // An upstream that refuses (a stopped broker) reaches the client as a reset, as a direct connection would.
    upstream.on('error', () => this.reset());
    upstream.once('close', (hadError) => hadError && this.destroy());
    upstream.once('connect', () => {
      this.toUpstream.connectTo(upstream);
      new DelayedPipe(upstream, this.proxy).connectTo(this.client);
    });
  }

  /** Both sockets closed with a reset (RST), as a dropped connection looks to either side. */
  reset(): void {
    for (const socket of [this.client, this.upstream]) {
      if (socket && !socket.destroyed) socket.resetAndDestroy();
    }
  }

  destroy(): void {
    this.client.destroy();
    this.upstream?.destroy();
  }
}

/**
 * One direction of a connection: chunks leave in arrival order, each no earlier than its
 * arrival plus the latency in force when it arrived, and none while the proxy black-holes.
 * Back-pressure is kept: the source is paused while the target's buffer is full.
 */
class DelayedPipe {
  private readonly queue: Array<{ chunk: Buffer; dueAt: number }> = [];
  private target: Socket | null = null;
  private sourceEnded = false;
  private flushing = false;

  constructor(
    private readonly source: Socket,
    private readonly proxy: FaultProxy,
  ) {
    source.on('data', (chunk: Buffer) => {
      this.queue.push({ chunk, dueAt: Date.now() + proxy.latencyMs() });
      void this.flush();
    });
    source.once('end', () => {
      this.sourceEnded = true;
      void this.flush();
    });
  }

  connectTo(target: Socket): void {
    this.target = target;
    void this.flush();
  }

  private async flush(): Promise<void> {
    const target = this.target;
    if (this.flushing || !target) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const { chunk, dueAt } = this.queue[0];
        const wait = dueAt - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const hole = this.proxy.forwarding();
        if (hole) await hole;
        this.queue.shift();
        if (target.destroyed) return;
        if (!target.write(chunk)) await this.drained(target);
      }
      if (this.sourceEnded && !target.destroyed) target.end();
    } finally {
      this.flushing = false;
    }
  }

  private async drained(target: Socket): Promise<void> {
    this.source.pause();
    await new Promise<void>((resolve) => {
      const done = () => {
        target.off('drain', done);
        target.off('close', done);
        resolve();
      };
      target.on('drain', done);
      target.on('close', done);
    });
    this.source.resume();
  }
}
