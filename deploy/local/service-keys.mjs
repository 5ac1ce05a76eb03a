import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where `npm start` keeps the services' token keys, next to the other local credentials (mode 600). */
export const SERVICE_KEYS_FILE = 'service-keys.json';

/**
 * An Ed25519 key pair per service for service-to-service tokens, generated once into
 * .local/dev/service-keys.json and reused on every start (a service's key is part of its
 * identity; tokens signed before a restart stay valid for their minute). Each service is given
 * its own private key and everyone's public keys, as the deployments do. Plain node:crypto here:
 * the launcher runs before anything is built, so it cannot import the TypeScript library.
 */
export function serviceKeyEnvironment(stateDir, services) {
  const file = join(stateDir, SERVICE_KEYS_FILE);
  const keys = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  let changed = false;
  for (const service of services) {
    if (keys[service]) continue;
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    keys[service] = {
      private_key: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      public_key: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    };
    changed = true;
  }
  if (changed) {
    writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  const publicKeys = services.map((service) => `${service}:${keys[service].public_key}`).join(',');
  return (service) => ({ SERVICE_TOKEN_PRIVATE_KEY: keys[service].private_key, SERVICE_TOKEN_PUBLIC_KEYS: publicKeys });
}
