import { connect, type AddressInfo, type Socket } from 'node:net';
import fastify, { type FastifyInstance } from 'fastify';
import { DRAINING_HTTP_OPTIONS } from './graceful-shutdown';

const closed = (socket: Socket) => new Promise<void>((resolve) => socket.on('close', () => resolve()));

/**
 * A request whose connection was open before the server started closing and whose headers
 * end while it closes (a caller that a load balancer had already routed there). One request
 * (`/close-now`) starts the close; the late request's last header line is sent just after.
 * Returns the raw bytes the late caller received.
 */
async function requestFinishedWhileClosing(server: FastifyInstance): Promise<string> {
  let closing: Promise<void> | undefined;
  const { promise: closeStartedPromise, resolve: closeStarted } = Promise.withResolvers<void>();
  server.get('/close-now', async () => {
    closing = server.close();
    closeStarted();
    // Held open for a fixed time, not a condition: the late request arrives while the server closes.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { closing: true };
  });
  server.get('/late', async () => ({ late: true }));
  await server.listen({ port: 0, host: '127.0.0.1' });
  const { port } = server.server.address() as AddressInfo;

  const late = connect(port, '127.0.0.1');
  let received = '';
  late.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  await new Promise((resolve) => late.on('connect', resolve));
  late.write('GET /late HTTP/1.1\r\nHost: gateway\r\n');
  const closer = connect(port, '127.0.0.1');
  closer.write('GET /close-now HTTP/1.1\r\nHost: gateway\r\n\r\n');
  await closeStartedPromise;
  late.write('\r\n');
  await closed(late);
  closer.destroy();
  await closing;
  return received;
}

describe('DRAINING_HTTP_OPTIONS', () => {
  it('answers a request that reaches a closing server in full, with Connection: close', async () => {
    const received = await requestFinishedWhileClosing(fastify(DRAINING_HTTP_OPTIONS));
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received.toLowerCase()).toContain('connection: close');
    expect(received).toContain('{"late":true}');
  });

  it("is needed: by default Fastify answers it with a bare 503 that has none of the API's headers or body", async () => {
    const received = await requestFinishedWhileClosing(fastify());
    expect(received).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(received).not.toContain('{"late":true}');
  });
});
