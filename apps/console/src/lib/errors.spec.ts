import { parseApiError } from './errors';

describe('parseApiError', () => {
  it('reads the error model: code, message, details and request id', () => {
    const body = JSON.stringify({
      error: { code: 'VALIDATION_ERROR', message: 'Invalid request', details: [{ field: 'amount', issue: 'must be positive' }] },
      request_id: 'req_1',
    });
    expect(parseApiError(400, body, null)).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'Invalid request',
      details: [{ field: 'amount', issue: 'must be positive' }],
      requestId: 'req_1',
    });
  });

  it('falls back to the x-request-id header and a described status for a body that is not the model', () => {
    expect(parseApiError(502, '<html>Bad gateway</html>', 'req_h')).toEqual({
      status: 502,
      code: 'HTTP_502',
      message: 'The server answered 502 without an error description.',
      details: [],
      requestId: 'req_h',
    });
  });

  it('drops malformed detail entries instead of failing', () => {
    const body = JSON.stringify({ error: { code: 'X', message: 'm', details: [{ field: 'a', issue: 'b' }, 'junk', { field: 3 }] }, request_id: 'r' });
    expect(parseApiError(409, body, null).details).toEqual([{ field: 'a', issue: 'b' }]);
  });
});
