import type { KeyObject } from 'node:crypto';
import type { ConfigReader } from '@mp/shared-util-config';
import { isServiceName, parsePrivateKey, parsePublicKey, type ServiceName } from './service-token';

export interface ServiceAuthConfig {
  service: ServiceName;
  privateKey: KeyObject;
  /** Each caller's public keys: one, or two while that caller's key is being rotated (current and next). */
  publicKeys: ReadonlyMap<ServiceName, readonly KeyObject[]>;
}

/** A caller's key rotation needs the key in use and the next one; a third would be a key nobody retired. */
const MAX_KEYS_PER_CALLER = 2;

const GENERATE_HINT = 'base64 of an Ed25519 PKCS#8 DER key, e.g. openssl genpkey -algorithm ed25519 -outform DER | base64 -w0';

/**
 * SERVICE_TOKEN_PRIVATE_KEY (this service's own key, which only it holds) and
 * SERVICE_TOKEN_PUBLIC_KEYS (`caller:<base64 SPKI DER>,…`, the services that call this one; a
 * caller listed twice has two keys, both accepted, while its key is rotated: docs/operations/service-keys.md).
 * Both are required: there is no way to run a service without service authentication.
 * `callers` are the services this one's allow-list names: each needs its public key here.
 */
export function readServiceAuthConfig(reader: ConfigReader, service: ServiceName, callers: readonly ServiceName[]): ServiceAuthConfig {
  const privateBase64 = reader.string('SERVICE_TOKEN_PRIVATE_KEY', {
    hint: GENERATE_HINT,
    defaultText: 'required (`npm start` generates one per service)',
    description:
      "the service's own Ed25519 key, base64 of its PKCS#8 DER (`openssl genpkey -algorithm ed25519 -outform DER | base64 -w0`): signs its [service tokens](../architecture.md#service-authentication); no other service has it",
  });
  let privateKey = undefined as unknown as KeyObject;
  if (privateBase64 !== '') {
    try {
      privateKey = parsePrivateKey(privateBase64);
    } catch (error) {
      reader.problem(`SERVICE_TOKEN_PRIVATE_KEY is not a usable key: ${(error as Error).message} (${GENERATE_HINT})`);
    }
  }
  const publicKeys = new Map<ServiceName, KeyObject[]>();
  const required = callers.filter((caller) => caller !== 'test-harness');
  const entries = reader.list('SERVICE_TOKEN_PUBLIC_KEYS', {
    description:
      '`service:<base64 SPKI DER>,...`: the public keys of the services that call it (every one its allow-list names must be there); the same list can go to every service; a service listed twice has two keys, both accepted, while its key is [rotated](service-keys.md)',
  });
  for (const entry of entries) {
    const separator = entry.indexOf(':');
    const name = entry.slice(0, Math.max(separator, 0));
    if (!isServiceName(name)) {
      reader.problem(
        `SERVICE_TOKEN_PUBLIC_KEYS: "${name || entry.slice(0, 20)}" is not a service name (expected service:<base64 SPKI DER key>, comma separated)`,
      );
      continue;
    }
    try {
      publicKeys.set(name, [...(publicKeys.get(name) ?? []), parsePublicKey(entry.slice(separator + 1))]);
    } catch (error) {
      reader.problem(`SERVICE_TOKEN_PUBLIC_KEYS: the key of ${name} is not a usable public key: ${(error as Error).message}`);
    }
  }
  for (const [caller, keys] of publicKeys) {
    if (keys.length > MAX_KEYS_PER_CALLER)
      reader.problem(
        `SERVICE_TOKEN_PUBLIC_KEYS lists ${keys.length} keys for ${caller}: at most ${MAX_KEYS_PER_CALLER}, its current and its next key during a rotation`,
      );
  }
  const missing = required.filter((caller) => !publicKeys.has(caller));
  if (entries.length > 0 && missing.length > 0)
    reader.problem(`SERVICE_TOKEN_PUBLIC_KEYS lacks the public key of ${missing.join(', ')}, which call this service`);
  return { service, privateKey, publicKeys };
}
