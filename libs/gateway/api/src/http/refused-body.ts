import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyReply } from 'fastify';

/** How much of a refused body the gateway still reads so the client can read the 413. */
export const REFUSED_BODY_DRAIN_BYTES_MAX = 16 * 1024 * 1024;
/** How long it keeps reading it. */
export const REFUSED_BODY_DRAIN_MS = 10_000;

/** The 413's message, the same for a body Fastify refused and one refused while streamed. */
export function bodyLimitExceededMessage(limitBytes: number): string {
  return `The request body is larger than this route's limit of ${limitBytes} bytes (${(limitBytes / 1024 / 1024).toFixed(2)} MiB)`;
}

/**
 * A body refused before it was read (413, 415) is still arriving: a client without
 * `Expect: 100-continue` (Node's fetch, Python's http.client) writes all of it before reading
 * the answer. Fastify answers with `Connection: close`, and closing a socket with unread bytes
 * in its receive buffer sends a TCP reset, which discards the answer on the client's side
 * before it reads it (EPIPE or ECONNRESET instead of the 413). So the connection stays open
 * and the rest of the body is read and dropped, up to REFUSED_BODY_DRAIN_BYTES_MAX or
 * REFUSED_BODY_DRAIN_MS; beyond either bound (or a Content-Length announcing more) the socket
 * is closed as before. The same holds when the client sent `Connection: close`. Hand-written:
 * neither Fastify nor Node offer a bounded drain of a refused request.
 */
export function keepReadingRefusedBody(request: IncomingMessage, reply: FastifyReply): void {
  if (request.complete) return;
  const announced = Number(request.headers['content-length']);
  if (Number.isFinite(announced) && announced > REFUSED_BODY_DRAIN_BYTES_MAX) return;
  void reply.removeHeader('connection');
  // A client that sent `Connection: close` makes Node close the socket as soon as the answer is
  // written, with the rest of the body unread: the same reset. So the answer does not close the
  // connection; the client closes it once it read the answer (it asked to), and the drain below
  // bounds how long and how much is read meanwhile: nginx's lingering close.
  reply.raw.shouldKeepAlive = true;
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

/**
 * A request body passed on as it arrives (a receipt upload, to payments), never held whole,
 * and refused with 413 as soon as it is known to be over `limitBytes`: at once when its
 * Content-Length says so, otherwise when the bytes counted so far pass it (chunked uploads).
 * The request itself is only unpiped, never destroyed, so the 413 reaches the client (see
 * keepReadingRefusedBody). Hand-written: a byte-counting Transform is all it takes.
 */
export function streamWithinLimit(request: IncomingMessage, body: Readable, limitBytes: number): Readable {
  if (Number(request.headers['content-length']) > limitBytes) throw new DomainError('PAYLOAD_TOO_LARGE', bodyLimitExceededMessage(limitBytes));
  let counted = 0;
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counted += chunk.length;
      if (counted <= limitBytes) return callback(null, chunk);
      body.unpipe(limited);
      callback(new DomainError('PAYLOAD_TOO_LARGE', bodyLimitExceededMessage(limitBytes)));
    },
  });
  body.once('error', (error) => limited.destroy(error));
  return body.pipe(limited);
}
