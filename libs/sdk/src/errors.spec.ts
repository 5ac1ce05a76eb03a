// eslint-disable-next-line @nx/enforce-module-boundaries -- test only: the SDK's codes are checked against the server's catalogue
import { HTTP_STATUS_BY_ERROR_CODE } from '@mp/shared-util-errors';
import { MERCHANT_ERROR_CODES, MerchantApiError } from './errors';

// The catalogue's codes that only the back-office, console and internal APIs answer with.
const NOT_MERCHANT_FACING = [
  'CREDENTIAL_EXPIRED',
  'CREDENTIAL_REVOKED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'ORDER_STATE_CONFLICT',
  'MERCHANT_STATUS_CONFLICT',
  'TEST_CREDENTIALS_EXIST',
  'CONSOLE_SESSION_REQUIRED',
  'INVALID_CONSOLE_CREDENTIALS',
  'CSRF_TOKEN_INVALID',
  'CONSOLE_ROLE_FORBIDDEN',
];

describe('MerchantApiError codes', () => {
  it('are exactly the merchant-facing codes of the error catalogue', () => {
    expect([...MERCHANT_ERROR_CODES].sort()).toEqual(
      Object.keys(HTTP_STATUS_BY_ERROR_CODE)
        .filter((code) => !NOT_MERCHANT_FACING.includes(code))
        .sort(),
    );
  });

  it('keeps the extra top-level fields of an error body, and reads a non-JSON answer by its status', () => {
    const stale = MerchantApiError.fromResponse(
      401,
      JSON.stringify({
        error: { code: 'TIMESTAMP_OUT_OF_RANGE', message: 'x-timestamp must be within 300 seconds', details: [] },
        request_id: 'req_9',
        server_time: 1767225600,
      }),
      null,
    );
    expect(stale).toMatchObject({ code: 'TIMESTAMP_OUT_OF_RANGE', status: 401, requestId: 'req_9', extra: { server_time: 1767225600 } });
    expect(MerchantApiError.fromResponse(503, '<html>bad gateway</html>', 'req_h')).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      requestId: 'req_h',
    });
  });
});
