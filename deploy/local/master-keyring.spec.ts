/**
 * Goal: `npm start` and `npm run rekey` read a service's master keyring from the local dev
 * state the way docs/operations/master-key-rotation.md says: the current key from its file,
 * its version, the retired keys and the next key from the files beside it, the environment
 * winning over the files. Method: the module both use, run by node on a temporary state directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const moduleFile = join(resolve(__dirname), 'master-keyring.mjs');

function keyringEnvironment(stateDir: string, env: Record<string, string> = {}): Record<string, string> {
  const script = `import(${JSON.stringify(moduleFile)}).then((m) => console.log(JSON.stringify(m.masterKeyringEnvironment(${JSON.stringify(stateDir)}, 'MERCHANT_SECRETS'))))`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', ...env } }));
}

describe('local master keyring (npm start, npm run rekey)', () => {
  it('is the key file alone before any rotation', () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'mp-keyring-'));
    writeFileSync(join(stateDir, 'master.key'), 'Y3VycmVudA==\n');
    expect(keyringEnvironment(stateDir)).toEqual({ MERCHANT_SECRETS_MASTER_KEY: 'Y3VycmVudA==' });
  });

  it('adds the version and the retired keys (one a line) from the files beside it; the environment wins', () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'mp-keyring-'));
    writeFileSync(join(stateDir, 'master.key'), 'bmV3\n');
    writeFileSync(join(stateDir, 'master.key.version'), '3\n');
    writeFileSync(join(stateDir, 'master.key.retired'), '1:b25l\n\n2:dHdv\n');
    expect(keyringEnvironment(stateDir)).toEqual({
      MERCHANT_SECRETS_MASTER_KEY: 'bmV3',
      MERCHANT_SECRETS_MASTER_KEY_VERSION: '3',
      MERCHANT_SECRETS_RETIRED_KEYS: '1:b25l,2:dHdv',
    });
    expect(keyringEnvironment(stateDir, { MERCHANT_SECRETS_MASTER_KEY_VERSION: '4', MERCHANT_SECRETS_RETIRED_KEYS: '3:bmV3' })).toEqual({
      MERCHANT_SECRETS_MASTER_KEY: 'bmV3',
      MERCHANT_SECRETS_MASTER_KEY_VERSION: '4',
      MERCHANT_SECRETS_RETIRED_KEYS: '3:bmV3',
    });
  });

  it('adds the next key of a rotation from <file>.next; the environment wins', () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'mp-keyring-'));
    writeFileSync(join(stateDir, 'master.key'), 'b25l\n');
    writeFileSync(join(stateDir, 'master.key.next'), '2:bmV3\n');
    expect(keyringEnvironment(stateDir)).toEqual({ MERCHANT_SECRETS_MASTER_KEY: 'b25l', MERCHANT_SECRETS_NEXT_KEY: '2:bmV3' });
    expect(keyringEnvironment(stateDir, { MERCHANT_SECRETS_NEXT_KEY: '3:dHdv' })).toEqual({
      MERCHANT_SECRETS_MASTER_KEY: 'b25l',
      MERCHANT_SECRETS_NEXT_KEY: '3:dHdv',
    });
  });
});
