import { parseLoginBody } from './login-request';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('parseLoginBody', () => {
  it('reads a role and a credential', () => {
    expect(parseLoginBody('application/json', json({ role: 'agent', credential: ' bo_x ' }))).toEqual({
      ok: true,
      login: { role: 'agent', credential: 'bo_x' },
    });
  });

  it.each([
    ['an unknown role', json({ role: 'admin', credential: 'x' }), 'role'],
    ['no credential', json({ role: 'merchant' }), 'credential'],
    ['an empty credential', json({ role: 'merchant', credential: '  ' }), 'credential'],
    ['a credential that is not a string', json({ role: 'merchant', credential: 42 }), 'credential'],
    ['an unknown field', json({ role: 'merchant', credential: 'x', remember: true }), 'remember'],
    ['an array', json([]), 'body'],
    ['broken JSON', Buffer.from('{"role":'), 'body'],
    ['no body', undefined, 'body'],
  ])('refuses %s with VALIDATION_ERROR', (_name, body, field) => {
    const parsed = parseLoginBody('application/json', body);
    expect(parsed).toMatchObject({ ok: false, code: 'VALIDATION_ERROR' });
    expect(parsed.ok ? [] : parsed.details.map((detail) => detail.field)).toContain(field);
  });

  it('refuses a body that is not JSON with UNSUPPORTED_MEDIA_TYPE', () => {
    expect(parseLoginBody('text/plain', Buffer.from('x'))).toMatchObject({ ok: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});
