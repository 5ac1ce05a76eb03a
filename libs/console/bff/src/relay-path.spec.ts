import { relayPathRefusal } from './relay-path';

describe('relayPathRefusal', () => {
  it.each([
    ['/backoffice/v1/..\\agent/orders', 'a backslash'],
    ['/backoffice/v1/%5Cagent/orders', 'a backslash'],
    ['/backoffice/v1/%61gent/orders', 'an unreserved character percent-encoded'],
    ['/backoffice/v1/%2e%2e/v2/merchant', 'an unreserved character percent-encoded'],
    ['/backoffice/v1/merchants/%6Dch_1', 'an unreserved character percent-encoded'],
    ['/backoffice/v1/../agent/orders', 'a dot segment'],
    ['/v2/./merchant', 'a dot segment'],
  ])('refuses %s (%s)', (url, reason) => {
    expect(relayPathRefusal(url)).toBe(reason);
  });

  it.each([
    '/v2/payments/status/A%2F1%3A2',
    '/v2/payments/status/%D0%B7%D0%B0%D0%BA%D0%B0%D0%B7',
    '/backoffice/v1/merchants?status=active&cursor=abc%3D%3D',
    '/backoffice/v1/disputes/mch_0123/dsp_abc?status=OPEN',
  ])('lets %s through', (url) => {
    expect(relayPathRefusal(url)).toBeNull();
  });
});
