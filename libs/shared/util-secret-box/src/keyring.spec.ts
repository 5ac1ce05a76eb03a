import { randomBytes } from 'node:crypto';
import { ConfigError, ConfigReader, type Environment } from '@mp/shared-util-config';
import { readMasterKeyring, SecretKeyring, UnknownKeyVersionError } from './keyring';
import { deriveKey, SecretBox } from './secret-box';

const keyV1 = randomBytes(32);
const keyV2 = randomBytes(32);

function keyringFrom(environment: Environment): SecretKeyring {
  const reader = new ConfigReader(environment);
  const keyring = readMasterKeyring(reader, 'MERCHANT_SECRETS');
  reader.assertValid();
  return keyring;
}

function problemsOf(environment: Environment): string {
  try {
    keyringFrom(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a configuration error');
}

describe('master keyring', () => {
  it('an existing deployment with only the master key keeps working: it is key version 1, nothing retired', () => {
    const keyring = keyringFrom({ MERCHANT_SECRETS_MASTER_KEY: keyV1.toString('base64') });
    expect(keyring.currentVersion).toBe(1);
    expect(keyring.retiredVersions).toEqual([]);
    expect(keyring.keyFor(1).equals(keyV1)).toBe(true);
    // What a version-1 box sealed before keyrings existed still opens.
    const legacy = new SecretBox(keyV1).seal('secret', 'owner:a');
    expect(new SecretBox(keyring).open(legacy, 'owner:a')).toBe('secret');
  });

  it('seals with the current key and opens each value with the key of its own version', () => {
    const before = new SecretBox(keyringFrom({ MERCHANT_SECRETS_MASTER_KEY: keyV1.toString('base64') })).seal('old secret', 'owner:a');
    const rotated = keyringFrom({
      MERCHANT_SECRETS_MASTER_KEY: keyV2.toString('base64'),
      MERCHANT_SECRETS_MASTER_KEY_VERSION: '2',
      MERCHANT_SECRETS_RETIRED_KEYS: `1:${keyV1.toString('base64')}`,
    });
    expect(rotated.currentVersion).toBe(2);
    expect(rotated.retiredVersions).toEqual([1]);
    const box = new SecretBox(rotated);
    const after = box.seal('new secret', 'owner:a');
    expect(after.keyVersion).toBe(2);
    expect(box.open(before, 'owner:a')).toBe('old secret');
    expect(box.open(after, 'owner:a')).toBe('new secret');
    // Once version 1 is removed, its values no longer open, and the error says which version is missing.
    const withoutV1 = new SecretBox(keyringFrom({ MERCHANT_SECRETS_MASTER_KEY: keyV2.toString('base64'), MERCHANT_SECRETS_MASTER_KEY_VERSION: '2' }));
    expect(withoutV1.open(after, 'owner:a')).toBe('new secret');
    expect(() => withoutV1.open(before, 'owner:a')).toThrow(UnknownKeyVersionError);
    expect(() => withoutV1.open(before, 'owner:a')).toThrow(/key version 1, which is not in the keyring \(has 2\)/);
  });

  it('says clearly when a value does not open with the key configured for its version, never returning garbage', () => {
    const sealed = new SecretBox(SecretKeyring.single(keyV1, 1)).seal('secret', 'owner:a');
    const wrongKeyForV1 = new SecretBox(
      new SecretKeyring(
        2,
        new Map([
          [2, keyV2],
          [1, randomBytes(32)],
        ]),
      ),
    );
    expect(() => wrongKeyForV1.open(sealed, 'owner:a')).toThrow(/does not open with key version 1/);
  });

  it('derives a key per purpose for every version, keeping the versions', () => {
    const keyring = new SecretKeyring(
      2,
      new Map([
        [2, keyV2],
        [1, keyV1],
      ]),
    );
    const accounts = keyring.derive('payout-recipient-account');
    expect(accounts.currentVersion).toBe(2);
    expect(accounts.keyFor(1).equals(deriveKey(keyV1, 'payout-recipient-account'))).toBe(true);
    expect(accounts.keyFor(2).equals(deriveKey(keyV2, 'payout-recipient-account'))).toBe(true);
  });

  it('lists every problem of a bad configuration at once, naming the variable and never echoing a key', () => {
    const message = problemsOf({
      MERCHANT_SECRETS_MASTER_KEY: keyV2.toString('base64'),
      MERCHANT_SECRETS_MASTER_KEY_VERSION: '2',
      MERCHANT_SECRETS_RETIRED_KEYS: `1:not*base64!, 3:${randomBytes(16).toString('base64')}, 4:${keyV1.toString('base64')}, 4:${randomBytes(32).toString('base64')}, 2:${randomBytes(32).toString('base64')}, five, x:${keyV1.toString('base64')}`,
    });
    expect(message).toMatch(/MERCHANT_SECRETS_RETIRED_KEYS entry 1 \(version 1\) is not base64/);
    expect(message).toMatch(/MERCHANT_SECRETS_RETIRED_KEYS entry 2 \(version 3\) must decode to 32 bytes, got 16/);
    expect(message).toMatch(/MERCHANT_SECRETS_RETIRED_KEYS lists version 4 twice/);
    expect(message).toMatch(
      /MERCHANT_SECRETS_RETIRED_KEYS lists version 2, the current MERCHANT_SECRETS_MASTER_KEY_VERSION: a key is either current or retired/,
    );
    expect(message).toMatch(/MERCHANT_SECRETS_RETIRED_KEYS entry 6 must be <version>:<base64 key>/);
    expect(message).toMatch(/MERCHANT_SECRETS_RETIRED_KEYS entry 7 has version "x", which is not a whole number from 1/);
    expect(message).not.toContain(keyV1.toString('base64'));
  });

  it('refuses a bad current key or version, and a retired key equal to the current one', () => {
    expect(problemsOf({})).toMatch(/MERCHANT_SECRETS_MASTER_KEY is required/);
    expect(problemsOf({ MERCHANT_SECRETS_MASTER_KEY: randomBytes(16).toString('base64') })).toMatch(
      /MERCHANT_SECRETS_MASTER_KEY must decode to 32 bytes, got 16/,
    );
    expect(problemsOf({ MERCHANT_SECRETS_MASTER_KEY: 'not*base64!but-long-enough-to-be-44-chars-xx' })).toMatch(/MERCHANT_SECRETS_MASTER_KEY is not base64/);
    expect(problemsOf({ MERCHANT_SECRETS_MASTER_KEY: keyV1.toString('base64'), MERCHANT_SECRETS_MASTER_KEY_VERSION: '0' })).toMatch(
      /MERCHANT_SECRETS_MASTER_KEY_VERSION must be ≥ 1/,
    );
    expect(
      problemsOf({
        MERCHANT_SECRETS_MASTER_KEY: keyV1.toString('base64'),
        MERCHANT_SECRETS_MASTER_KEY_VERSION: '2',
        MERCHANT_SECRETS_RETIRED_KEYS: `1:${keyV1.toString('base64')}`,
      }),
    ).toMatch(/MERCHANT_SECRETS_RETIRED_KEYS version 1 holds the same key as MERCHANT_SECRETS_MASTER_KEY: a rotation needs a new key/);
  });

  it('reads the next key before it seals with it, so replicas still on this step open what promoted replicas sealed', () => {
    const withNext = keyringFrom({ MERCHANT_SECRETS_MASTER_KEY: keyV1.toString('base64'), MERCHANT_SECRETS_NEXT_KEY: `2:${keyV2.toString('base64')}` });
    expect(withNext.currentVersion).toBe(1);
    expect(new SecretBox(withNext).seal('still under the current key', 'owner:a').keyVersion).toBe(1);
    const promoted = new SecretBox(
      keyringFrom({
        MERCHANT_SECRETS_MASTER_KEY: keyV2.toString('base64'),
        MERCHANT_SECRETS_MASTER_KEY_VERSION: '2',
        MERCHANT_SECRETS_RETIRED_KEYS: `1:${keyV1.toString('base64')}`,
      }),
    );
    const sealedByPromoted = promoted.seal('sealed by a promoted replica', 'owner:a');
    expect(new SecretBox(withNext).open(sealedByPromoted, 'owner:a')).toBe('sealed by a promoted replica');
  });

  it('refuses a next key that is malformed, not above the current version, retired already, or a key in use', () => {
    const current = {
      MERCHANT_SECRETS_MASTER_KEY: keyV2.toString('base64'),
      MERCHANT_SECRETS_MASTER_KEY_VERSION: '2',
      MERCHANT_SECRETS_RETIRED_KEYS: `3:${keyV1.toString('base64')}`,
    };
    expect(problemsOf({ ...current, MERCHANT_SECRETS_NEXT_KEY: randomBytes(32).toString('base64') })).toMatch(
      /MERCHANT_SECRETS_NEXT_KEY must be <version>:<base64 key>/,
    );
    expect(problemsOf({ ...current, MERCHANT_SECRETS_NEXT_KEY: `2:${randomBytes(32).toString('base64')}` })).toMatch(
      /MERCHANT_SECRETS_NEXT_KEY has version 2: the next key's version must be above MERCHANT_SECRETS_MASTER_KEY_VERSION \(2\)/,
    );
    expect(problemsOf({ ...current, MERCHANT_SECRETS_NEXT_KEY: `3:${randomBytes(32).toString('base64')}` })).toMatch(
      /MERCHANT_SECRETS_NEXT_KEY has version 3, which MERCHANT_SECRETS_RETIRED_KEYS lists too/,
    );
    expect(problemsOf({ ...current, MERCHANT_SECRETS_NEXT_KEY: `4:${keyV2.toString('base64')}` })).toMatch(
      /MERCHANT_SECRETS_NEXT_KEY holds a key already in use: a rotation needs a new key/,
    );
    expect(problemsOf({ ...current, MERCHANT_SECRETS_NEXT_KEY: `4:${keyV1.toString('base64')}` })).toMatch(
      /MERCHANT_SECRETS_NEXT_KEY holds a key already in use/,
    );
    expect(problemsOf({ ...current, MERCHANT_SECRETS_NEXT_KEY: `4:${keyV1.toString('base64')},5:${randomBytes(32).toString('base64')}` })).toMatch(
      /MERCHANT_SECRETS_NEXT_KEY must be one <version>:<base64 key>/,
    );
  });

  it('refuses to be built without its current key', () => {
    expect(() => new SecretKeyring(2, new Map([[1, keyV1]]))).toThrow(/current key version 2/);
    expect(() => new SecretKeyring(1, new Map([[1, randomBytes(16)]]))).toThrow(/32 bytes/);
  });
});
