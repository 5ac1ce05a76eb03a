import { createServer, type Server } from 'node:http';
import { verifyCallback, type CallbackEvent } from '@mp/merchant-sdk';

/**
 * A callback endpoint: verifies each callback over its raw bytes, answers at once, then hands
 * the event on. `secrets` is the webhook secret, or both while a rotated one is rolled out.
 */
export function callbackServer(secrets: string[], onEvent: (event: CallbackEvent) => void): Server {
  const seen = new Set<string>();
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const result = verifyCallback(secrets, Buffer.concat(chunks), request.headers);
      if (!result.valid) {
        response.writeHead(401).end();
        return;
      }
      response.writeHead(204).end();
      // At least once: the same event may come again with the same id.
      if (seen.has(result.event.id)) return;
      seen.add(result.event.id);
      onEvent(result.event);
    });
  });
}
