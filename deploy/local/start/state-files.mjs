// The start command's state files: credentials readable by their owner only, and the master keyrings' key files.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MASTER_KEY_FILES, masterKeyringEnvironment } from '../master-keyring.mjs';
import { stateDir } from './settings.mjs';

export function writePrivate(file, text) {
  writeFileSync(file, text, { mode: 0o600 });
  // The mode of writeFileSync applies only to a new file: an older one keeps whatever it had.
  chmodSync(file, 0o600);
}

/** Files written by earlier versions may be readable by anyone: not any more. */
export function tightenStateFiles() {
  for (const name of readdirSync(stateDir)) {
    if (name.endsWith('.json') || name === 'master.key') chmodSync(join(stateDir, name), 0o600);
  }
}

export function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** A service's master keyring (see master-keyring.mjs); its first key is generated once for this machine's dev state. */
export function masterKeyring(prefix) {
  const keyFile = join(stateDir, MASTER_KEY_FILES[prefix]);
  if (!process.env[`${prefix}_MASTER_KEY`] && !existsSync(keyFile)) writePrivate(keyFile, randomBytes(32).toString('base64'));
  return masterKeyringEnvironment(stateDir, prefix);
}
