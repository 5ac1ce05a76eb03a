// eslint-disable-next-line @nx/enforce-module-boundaries -- test only: the SDK must verify what the dispatcher's own signing code produces
import { signedHeaders } from '@mp/callbacks-infrastructure';
import { randomBytes } from 'node:crypto';
import { verifyCallback } from './callbacks';

const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({
  id: 'msg_2f0a6c1e9b7d4e3f8a5c0b1d2e3f4a5b',
  type: 'payment.succeeded',
  created_at: '2026-01-01T00:07:12.340Z',
  data: { order_id: 'Ünï-7', status: 'SUCCEEDED', amount: 1500.5, version: 4 },
});

describe('verifyCallback against the callback dispatcher signing code', () => {
  const current = newWebhookSecret();
  const previous = newWebhookSecret();

  it('accepts a callback signed now and returns its event', () => {
    const headers = signedHeaders('msg_2f0a6c1e9b7d4e3f8a5c0b1d2e3f4a5b', new Date(), body, [current]);
    expect(verifyCallback(current, body, headers)).toEqual({ valid: true, event: JSON.parse(body) });
    expect(verifyCallback(current, Buffer.from(body, 'utf8'), headers).valid).toBe(true);
  });

  it('accepts a rotation-overlap callback (two signatures) with either secret, and a receiver holding both', () => {
    const headers = signedHeaders('msg_1', new Date(), body, [current, previous]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifyCallback(current, body, headers).valid).toBe(true);
    expect(verifyCallback(previous, body, headers).valid).toBe(true);
    // A receiver that already has the new secret and still the old one, for a callback signed with the old one only.
    expect(verifyCallback([current, previous], body, signedHeaders('msg_1', new Date(), body, [previous])).valid).toBe(true);
  });

  it('refuses a tampered body, another secret, a changed webhook-id, a missing header and a timestamp outside the 5 minutes', () => {
    const headers = signedHeaders('msg_1', new Date(), body, [current]);
    expect(verifyCallback(current, body.replace('1500.5', '15000.5'), headers)).toMatchObject({ valid: false, reason: expect.stringMatching(/signature/i) });
    expect(verifyCallback(newWebhookSecret(), body, headers).valid).toBe(false);
    expect(verifyCallback(current, body, { ...headers, 'webhook-id': 'msg_2' }).valid).toBe(false);
    expect(verifyCallback(current, body, { ...headers, 'webhook-signature': undefined })).toEqual({ valid: false, reason: 'missing header webhook-signature' });
    expect(verifyCallback(current, body, signedHeaders('msg_1', new Date(Date.now() - 6 * 60_000), body, [current]))).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/too old/i),
    });
    expect(verifyCallback(current, body, signedHeaders('msg_1', new Date(Date.now() + 6 * 60_000), body, [current]))).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/too new/i),
    });
  });
});
