import { clearedSessionCookie, SESSION_COOKIE_NAME, sessionCookie, sessionValueOf } from './session-cookie';

const value = 'a'.repeat(43);

describe('the session cookie', () => {
  it('is __Host- prefixed, Secure, HttpOnly, SameSite=Strict, Path=/ and has no Domain', () => {
    const cookie = sessionCookie(value);
    expect(cookie.startsWith(`__Host-console_session=${value};`)).toBe(true);
    const attributes = cookie
      .split(';')
      .slice(1)
      .map((part) => part.trim());
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'Secure', 'HttpOnly', 'SameSite=Strict']));
    expect(cookie).not.toMatch(/domain=/i);
  });

  it('is cleared with the same attributes and Max-Age=0', () => {
    expect(clearedSessionCookie()).toBe(`${SESSION_COOKIE_NAME}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0`);
  });

  it('is read from a Cookie header among others, and only when well formed', () => {
    expect(sessionValueOf(`theme=dark; ${SESSION_COOKIE_NAME}=${value}; other=1`)).toBe(value);
    expect(sessionValueOf(`console_session=${value}`)).toBeNull();
    expect(sessionValueOf(`${SESSION_COOKIE_NAME}=short`)).toBeNull();
    expect(sessionValueOf(undefined)).toBeNull();
  });
});
