import type { ArgumentsHost } from '@nestjs/common';
import { ErrorResponseFilter } from './error-response.filter';

/** What the filter sends: status, headers and the JSON body, through a stand-in for Fastify's reply. */
function answerTo(exception: unknown): { status: number; headers: Record<string, string>; body: { error: { code: string; message: string } } } {
  const sent = { status: 0, headers: {} as Record<string, string>, body: '' };
  const reply = {
    hasHeader: (name: string) => name in sent.headers,
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    status(code: number) {
      sent.status = code;
      return reply;
    },
    type: () => reply,
    send(body: string) {
      sent.body = body;
      return reply;
    },
  };
  const request = { requestId: 'req_unit', method: 'POST', url: '/v2/payments/incoming', raw: {} };
  const host = { switchToHttp: () => ({ getResponse: () => reply, getRequest: () => request }) } as unknown as ArgumentsHost;
  new ErrorResponseFilter().catch(exception, host);
  return { status: sent.status, headers: sent.headers, body: JSON.parse(sent.body) };
}

describe('ErrorResponseFilter and a database that cannot be reached', () => {
  // What the gateway's own PostgreSQL looked like to it in the chaos run (docs/operations/chaos.md):
  // the pool could not connect in time, a connection was dropped, the server was shutting down.
  it.each([
    ['the pool timing out on connect', new Error('timeout exceeded when trying to connect')],
    ['a connection timeout', new Error('Connection terminated due to connection timeout')],
    ['a refused connection (a restart)', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [
      'a terminated backend (57P01), wrapped by TypeORM',
      Object.assign(new Error('QueryFailedError'), {
        driverError: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      }),
    ],
  ])('answers %s with 503 SERVICE_UNAVAILABLE and Retry-After, not 500', (_, exception) => {
    const answer = answerTo(exception);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('still answers anything else unexpected with 500 INTERNAL_ERROR and no internals', () => {
    const answer = answerTo(new TypeError("Cannot read properties of undefined (reading 'merchantId')"));
    expect(answer.status).toBe(500);
    expect(answer.body.error).toEqual({ code: 'INTERNAL_ERROR', message: 'An internal error occurred; it has been logged', details: [] });
  });
});
