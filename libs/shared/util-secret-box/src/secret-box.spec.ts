import { randomBytes } from 'node:crypto';
import { deriveKey, SecretBox } from './secret-box';

describe('secret box', () => {
  const masterKey = randomBytes(32);

  it('opens what it sealed for the same associated data only', () => {
    const box = new SecretBox(masterKey);
    const sealed = box.seal('40817810099910004312', 'owner:a');
    expect(sealed.ciphertext.toString('utf8')).not.toContain('40817810099910004312');
    expect(box.open(sealed, 'owner:a')).toBe('40817810099910004312');
    expect(() => box.open(sealed, 'owner:b')).toThrow();
  });

  it("derives a distinct, stable key per purpose, so one purpose cannot open another's data", () => {
    const accounts = deriveKey(masterKey, 'payout-recipient-account');
    expect(deriveKey(masterKey, 'payout-recipient-account').equals(accounts)).toBe(true);
    expect(deriveKey(masterKey, 'payer-page-token').equals(accounts)).toBe(false);
    expect(accounts.equals(masterKey)).toBe(false);
    const sealed = new SecretBox(accounts).seal('secret', 'x');
    expect(() => new SecretBox(deriveKey(masterKey, 'other')).open(sealed, 'x')).toThrow();
  });

  it('refuses a master key of the wrong size', () => {
    expect(() => deriveKey(randomBytes(16), 'payout-recipient-account')).toThrow(/32 bytes/);
  });
});
