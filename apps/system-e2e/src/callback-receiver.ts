import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  body: string;
  /** The secrets whose signature the `standardwebhooks` package accepted. */
  verifiedWith: string[];
}

export interface CallbackBodyShape {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown> & { version: number };
}

/** A merchant's receiver: verifies every callback with each secret it knows; answers `status`. */
export class VerifyingReceiver {
  readonly received: ReceivedCallback[] = [];
  status = 200;
  private server!: Server;

  constructor(readonly secrets: string[]) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const verifiedWith = this.secrets.filter((secret) => {
          try {
            new Webhook(secret).verify(body, request.headers as Record<string, string>);
            return true;
          } catch {
            return false;
          }
        });
        this.received.push({ headers: request.headers, body, verifiedWith });
        response.writeHead(verifiedWith.length > 0 ? this.status : 400).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path = '/callbacks'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  bodies<Data extends Record<string, unknown> = { order_id: string }>(): Array<CallbackBodyShape & { data: Data & { version: number } }> {
    return this.received.map((callback) => JSON.parse(callback.body));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
