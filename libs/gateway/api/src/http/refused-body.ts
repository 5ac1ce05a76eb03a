import type { IncomingMessage } from 'node:http';
import type { FastifyReply } from 'fastify';

/** How much of a refused body the gateway still reads so the client can read the 413. */
export const REFUSED_BODY_DRAIN_BYTES_MAX = 16 * 1024 * 1024;
/** How long it keeps reading it. */
export const REFUSED_BODY_DRAIN_MS = 10_000;

/**
 * A body refused as too large (413) is still arriving: a client without `Expect: 100-continue`
 * (Node's fetch, Python's http.client) writes all of it before reading the answer. Fastify
 * answers with `Connection: close`, and closing a socket with unread bytes in its receive
 * buffer sends a TCP reset, which discards the 413 on the client's side before it reads it
 * (EPIPE or ECONNRESET instead of the answer). So the connection stays open and the rest of the
 * body is read and dropped, up to REFUSED_BODY_DRAIN_BYTES_MAX or REFUSED_BODY_DRAIN_MS;
 * beyond either bound (or a Content-Length announcing more) the socket is closed as before.
 * Hand-written: neither Fastify nor Node offer a bounded drain of a refused request.
 */
export function keepReadingRefusedBody(request: IncomingMessage, reply: FastifyReply): void {
  if (request.complete) return;
  const announced = Number(request.headers['content-length']);
  if (Number.isFinite(announced) && announced > REFUSED_BODY_DRAIN_BYTES_MAX) return;
  void reply.removeHeader('connection');
  let drained = 0;
  const giveUp = setTimeout(() => request.socket.destroy(), REFUSED_BODY_DRAIN_MS);
  giveUp.unref();
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_BODY_DRAIN_BYTES_MAX) request.socket.destroy();
  });
  request.once('end', () => clearTimeout(giveUp));
  request.resume();
}
