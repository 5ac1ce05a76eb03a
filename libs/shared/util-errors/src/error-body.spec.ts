import { DomainError } from './domain-error';
import { internalErrorBody, publicErrorAnswer, readInternalErrorBody } from './error-body';

describe('error bodies', () => {
  it('reads back the DomainError an internal body carries', () => {
    const error = new DomainError('INSUFFICIENT_FUNDS', 'Not enough', [{ field: 'amount', issue: 'too large' }]);
    expect(readInternalErrorBody(JSON.parse(JSON.stringify(error.toDescription())))).toEqual(error);
    expect(readInternalErrorBody(internalErrorBody('NOT_FOUND', 'No such merchant'))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'No such merchant',
      details: [],
    });
  });

  it('is null for a body that is not an error of a known code; the message falls back', () => {
    expect(readInternalErrorBody(null)).toBeNull();
    expect(readInternalErrorBody('INSUFFICIENT_FUNDS')).toBeNull();
    expect(readInternalErrorBody({ code: 'NO_SUCH_CODE', message: 'x' })).toBeNull();
    expect(readInternalErrorBody({ code: 'NOT_FOUND' })?.message).toBe('NOT_FOUND');
    expect(readInternalErrorBody({ code: 'NOT_FOUND', details: 'x' }, 'Gone')).toMatchObject({ message: 'Gone', details: [] });
  });

  it('writes the merchant API body with the status of the code and the extra members on top', () => {
    const answer = publicErrorAnswer(new DomainError('TIMESTAMP_OUT_OF_RANGE', 'stale', [], { server_time: 1 }), 'req_1');
    expect(answer).toEqual({
      status: 401,
      body: { error: { code: 'TIMESTAMP_OUT_OF_RANGE', message: 'stale', details: [] }, request_id: 'req_1', server_time: 1 },
    });
  });
});
