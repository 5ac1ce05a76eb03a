import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainError } from '@mp/shared-util-errors';
import { InternalCallFailed, InternalHttpClient, TtlCache } from './internal-http-client';

/** A callee that answers each request with what `answer` says, and records what it was sent. */
async function callee(
  answer: (request: IncomingMessage, body: string) => { status: number; body?: unknown },
): Promise<{ url: string; seen: Array<{ headers: IncomingMessage['headers']; body: string }>; server: Server }> {
  const seen: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ headers: request.headers, body });
      const { status, body: answerBody } = answer(request, body);
      response.writeHead(status, { 'content-type': 'application/json' }).end(answerBody === undefined ? '' : JSON.stringify(answerBody));
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const client = (baseUrl: string) =>
  new InternalHttpClient({ service: 'ledger', baseUrl, timeoutMs: 2_000, authorization: async (actor) => `Bearer token-for-${actor?.id ?? 'service'}` });

describe('InternalHttpClient', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((server) => new Promise((closed) => server.close(closed)))));

  it('sends the service token and JSON, and hands back every status with its body', async () => {
    const ledger = await callee((request) =>
      request.url === '/internal/holds'
        ? { status: 400, body: { code: 'INSUFFICIENT_FUNDS', message: 'no', details: [] } }
        : { status: 200, body: { ok: true } },
    );
    servers.push(ledger.server);
    const answer = await client(ledger.url).call('POST', '/internal/holds', { body: { amount: 1 } });
    expect(answer).toEqual({ status: 400, body: { code: 'INSUFFICIENT_FUNDS', message: 'no', details: [] } });
    expect(ledger.seen[0]?.headers.authorization).toBe('Bearer token-for-service');
    expect(ledger.seen[0]?.headers['content-type']).toBe('application/json');
    expect(ledger.seen[0]?.body).toBe('{"amount":1}');
  });

  it('raises the DomainError a 4xx carries; a 401, a 5xx or an unknown code is SERVICE_UNAVAILABLE', async () => {
    const answers: Record<string, { status: number; body?: unknown }> = {
      '/refused': { status: 409, body: { code: 'DUPLICATE_ORDER', message: 'taken', details: [{ field: 'order_id', issue: 'taken' }] } },
      '/token': { status: 401, body: { code: 'UNAUTHENTICATED', message: 'bad token', details: [] } },
      '/broken': { status: 500, body: { code: 'INTERNAL_ERROR', message: 'boom', details: [] } },
      '/unknown': { status: 400, body: { code: 'NOT_A_CODE', message: 'x' } },
    };
    const service = await callee((request) => answers[request.url ?? ''] ?? { status: 200, body: { fine: true } });
    servers.push(service.server);
    const ledger = client(service.url);
    const refusal = await ledger.request('GET', '/refused').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ code: 'DUPLICATE_ORDER', message: 'taken', details: [{ field: 'order_id', issue: 'taken' }] });
    for (const path of ['/token', '/broken', '/unknown']) {
      await expect(ledger.request('GET', path)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        message: 'The ledger service could not answer; retry shortly',
      });
    }
    await expect(ledger.exchange('GET', '/fine')).resolves.toEqual({ status: 200, body: { fine: true } });
  });

  it('with no answer: `call` throws InternalCallFailed, `request` SERVICE_UNAVAILABLE', async () => {
    const gone = await callee(() => ({ status: 200 }));
    await new Promise((closed) => gone.server.close(closed));
    await expect(client(gone.url).call('GET', '/x')).rejects.toBeInstanceOf(InternalCallFailed);
    await expect(client(gone.url).request('GET', '/x')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The ledger service is not reachable; retry shortly',
    });
  });
});

describe('TtlCache', () => {
  it('loads once per key until the entry expires, and again when asked for a fresh value', async () => {
    let loads = 0;
    const cache = new TtlCache<number>(60_000);
    const load = async () => ++loads;
    expect(await cache.get('a', load)).toBe(1);
    expect(await cache.get('a', load)).toBe(1);
    expect(await cache.get('b', load)).toBe(2);
    expect(await cache.get('a', load, { fresh: true })).toBe(3);
    expect(await new TtlCache<number>(-1).get('a', load).then(() => loads)).toBe(4);
  });

  it('makes gets of a key whose load is in flight wait for that load, and keeps no failed load', async () => {
    let loads = 0;
    let finish: (value: number) => void = () => undefined;
    const cache = new TtlCache<number>(60_000);
    const slowLoad = () => {
      loads += 1;
      return new Promise<number>((resolve) => (finish = resolve));
    };
    const burst = [cache.get('m', slowLoad), cache.get('m', slowLoad), cache.get('m', slowLoad)];
    expect(loads).toBe(1);
    finish(7);
    expect(await Promise.all(burst)).toEqual([7, 7, 7]);
    expect(await cache.get('m', slowLoad)).toBe(7);
    expect(loads).toBe(1);

    const failing = cache.get('n', () => Promise.reject(new Error('gateway down')));
    const joined = cache.get('n', async () => 0);
    await expect(failing).rejects.toThrow('gateway down');
    await expect(joined).rejects.toThrow('gateway down');
    expect(await cache.get('n', async () => 9)).toBe(9);
  });
});
