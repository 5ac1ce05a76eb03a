import { checkCsrf, type CsrfCheckInput } from './csrf';

const base: CsrfCheckInput = {
  method: 'POST',
  host: 'gw.example:3000',
  origin: 'https://gw.example:3000',
  csrfHeader: 'token-1',
  sessionCsrfToken: 'token-1',
  isLogin: false,
};

describe('checkCsrf', () => {
  it('lets reads through without any header', () => {
    expect(checkCsrf({ ...base, method: 'GET', origin: undefined, csrfHeader: undefined })).toEqual({ ok: true });
    expect(checkCsrf({ ...base, method: 'HEAD', origin: 'https://evil.example', csrfHeader: undefined })).toEqual({ ok: true });
  });

  it('accepts a change with the own origin (http or https) and the session token', () => {
    expect(checkCsrf(base)).toEqual({ ok: true });
    expect(checkCsrf({ ...base, origin: 'http://gw.example:3000' })).toEqual({ ok: true });
  });

  it.each([
    ['no origin', { origin: undefined }],
    ['a foreign origin', { origin: 'https://evil.example' }],
    ['another port', { origin: 'https://gw.example:4000' }],
    ['the null origin', { origin: 'null' }],
    ['an origin with a path', { origin: 'https://gw.example:3000/x' }],
    ['another scheme', { origin: 'ftp://gw.example:3000' }],
    ['no host header', { host: undefined }],
  ])('refuses %s', (_name, change) => {
    expect(checkCsrf({ ...base, ...change })).toMatchObject({ ok: false, field: 'origin' });
  });

  it('refuses a missing or wrong x-csrf-token, except on login', () => {
    expect(checkCsrf({ ...base, csrfHeader: undefined })).toMatchObject({ ok: false, field: 'x-csrf-token' });
    expect(checkCsrf({ ...base, csrfHeader: 'token-2' })).toMatchObject({ ok: false, field: 'x-csrf-token' });
    expect(checkCsrf({ ...base, csrfHeader: 'token-1-longer' })).toMatchObject({ ok: false, field: 'x-csrf-token' });
    expect(checkCsrf({ ...base, csrfHeader: undefined, sessionCsrfToken: null, isLogin: true })).toEqual({ ok: true });
    expect(checkCsrf({ ...base, origin: 'https://evil.example', isLogin: true })).toMatchObject({ ok: false, field: 'origin' });
  });
});
