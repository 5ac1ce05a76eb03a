import { DomainError } from './domain-error';
import { httpStatusOf, isErrorCode } from './error-codes';

describe('error model', () => {
  it('maps the codes of docs/api/errors.md to their statuses', () => {
    expect(httpStatusOf('DUPLICATE_ORDER')).toBe(409);
    expect(httpStatusOf('INVALID_SIGNATURE')).toBe(401);
    expect(httpStatusOf('VALIDATION_ERROR')).toBe(400);
    expect(httpStatusOf('SERVICE_UNAVAILABLE')).toBe(503);
  });

  it('recognises only known codes', () => {
    expect(isErrorCode('ORDER_NOT_FOUND')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('SOMETHING_ELSE')).toBe(false);
  });

  it('round-trips through its wire description', () => {
    const error = new DomainError('VALIDATION_ERROR', 'bad', [{ field: 'amount', issue: 'must be positive' }]);
    const copy = DomainError.fromDescription(JSON.parse(JSON.stringify(error.toDescription())));
    expect(copy).toBeInstanceOf(DomainError);
    expect(copy.toDescription()).toEqual(error.toDescription());
  });
});
