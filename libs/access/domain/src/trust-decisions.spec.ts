import { checkBackofficeCredential, credentialExpiry, decideApiSecretRotation, decideMerchantStatus, secretsValidAt } from './index';

const now = new Date('2026-11-26T00:00:00.000Z');
const HOUR_MS = 3_600_000;

describe('decideApiSecretRotation', () => {
  it('rotates when no overlap runs, the previous secret verifying for the overlap', () => {
    expect(decideApiSecretRotation({ previousValidUntil: null }, 24 * HOUR_MS, now)).toEqual({
      kind: 'rotate',
      previousValidUntil: new Date(now.getTime() + 24 * HOUR_MS),
    });
  });

  it('rotates again once the previous overlap has ended', () => {
    expect(decideApiSecretRotation({ previousValidUntil: now }, HOUR_MS, now).kind).toBe('rotate');
  });

  it('refuses a second rotation during an overlap, naming its end', () => {
    const until = new Date(now.getTime() + 1);
    expect(decideApiSecretRotation({ previousValidUntil: until }, HOUR_MS, now)).toEqual({
      kind: 'refuse',
      code: 'SECRET_ROTATION_IN_PROGRESS',
      previousValidUntil: until,
    });
  });

  it('lets an operator end a running overlap with a zero-overlap rotation only', () => {
    const until = new Date(now.getTime() + HOUR_MS);
    expect(decideApiSecretRotation({ previousValidUntil: until }, 0, now, { endOverlapNow: true })).toEqual({ kind: 'rotate', previousValidUntil: now });
    expect(decideApiSecretRotation({ previousValidUntil: until }, HOUR_MS, now, { endOverlapNow: true }).kind).toBe('refuse');
    expect(decideApiSecretRotation({ previousValidUntil: until }, 0, now).kind).toBe('refuse');
  });

  it.each([-1, 1.5, Number.NaN])('refuses the impossible overlap %p as a bug', (overlapMs) => {
    expect(() => decideApiSecretRotation({ previousValidUntil: null }, overlapMs, now)).toThrow('invariant');
  });
});

describe('secretsValidAt', () => {
  const current = { secret: Buffer.from('new'), validUntil: null };
  const previous = { secret: Buffer.from('old'), validUntil: new Date(now.getTime() + 1_000) };
  it('keeps the previous secret strictly before its end', () => {
    expect(secretsValidAt([current, previous], new Date(now.getTime() + 999))).toEqual([current, previous]);
  });
  it('drops it at its end and after', () => {
    expect(secretsValidAt([current, previous], new Date(now.getTime() + 1_000))).toEqual([current]);
    expect(secretsValidAt([current, previous], new Date(now.getTime() + 86_400_000))).toEqual([current]);
  });
});

describe('checkBackofficeCredential', () => {
  const later = new Date(now.getTime() + 1_000);
  it('accepts a live credential and one that never expires', () => {
    expect(checkBackofficeCredential({ expiresAt: later, revokedAt: null }, now)).toEqual({ ok: true });
    expect(checkBackofficeCredential({ expiresAt: null, revokedAt: null }, now)).toEqual({ ok: true });
  });
  it('refuses an expired one from its expiry on', () => {
    expect(checkBackofficeCredential({ expiresAt: now, revokedAt: null }, now)).toEqual({ ok: false, code: 'CREDENTIAL_EXPIRED' });
  });
  it('names revocation before expiry', () => {
    expect(checkBackofficeCredential({ expiresAt: now, revokedAt: now }, later)).toEqual({ ok: false, code: 'CREDENTIAL_REVOKED' });
  });
});

describe('credentialExpiry', () => {
  it('adds whole days', () => expect(credentialExpiry(now, 90)).toEqual(new Date('2027-02-24T00:00:00.000Z')));
  it.each([0, -1, 1.5])('refuses a lifetime of %p days', (days) => expect(() => credentialExpiry(now, days)).toThrow('invariant'));
});

describe('decideMerchantStatus', () => {
  it('suspends an active merchant and reinstates a suspended one', () => {
    expect(decideMerchantStatus('active', 'suspend')).toEqual({ kind: 'change', status: 'suspended' });
    expect(decideMerchantStatus('suspended', 'reinstate')).toEqual({ kind: 'change', status: 'active' });
  });
  it('refuses a change that changes nothing', () => {
    expect(decideMerchantStatus('suspended', 'suspend')).toEqual({ kind: 'refuse', code: 'MERCHANT_STATUS_CONFLICT', status: 'suspended' });
    expect(decideMerchantStatus('active', 'reinstate')).toEqual({ kind: 'refuse', code: 'MERCHANT_STATUS_CONFLICT', status: 'active' });
  });
});
