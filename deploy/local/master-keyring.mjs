/**
 * A service's master keyring in the local dev state (.local/dev), for `npm start` and
 * `npm run rekey` (docs/operations/master-key-rotation.md):
 *
 *   <file>          the current key, base64 (master.key: gateway, payments-master.key: payments)
 *   <file>.version  its key version; absent: 1
 *   <file>.retired  retired keys still readable, one "<version>:<base64 key>" a line; absent: none
 *   <file>.next     the next key of a rotation, read before it becomes current: "<version>:<base64 key>"; absent: none
 *
 * Variables set in the environment win over the files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Which file holds which service's keys, by variable prefix. */
export const MASTER_KEY_FILES = { MERCHANT_SECRETS: 'master.key', PAYMENTS_SECRETS: 'payments-master.key' };

/** The <prefix>_MASTER_KEY, _MASTER_KEY_VERSION, _RETIRED_KEYS and _NEXT_KEY the service reads; unset ones are left out. */
export function masterKeyringEnvironment(stateDir, prefix) {
  const fileName = MASTER_KEY_FILES[prefix];
  const stateFile = (suffix) => {
    const file = join(stateDir, `${fileName}${suffix}`);
    return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
  };
  const retiredLines = stateFile('.retired')
    ?.split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const values = {
    [`${prefix}_MASTER_KEY`]: process.env[`${prefix}_MASTER_KEY`] || stateFile(''),
    [`${prefix}_MASTER_KEY_VERSION`]: process.env[`${prefix}_MASTER_KEY_VERSION`] || stateFile('.version'),
    [`${prefix}_RETIRED_KEYS`]: process.env[`${prefix}_RETIRED_KEYS`] || retiredLines?.join(','),
    [`${prefix}_NEXT_KEY`]: process.env[`${prefix}_NEXT_KEY`] || stateFile('.next'),
  };
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value));
}
