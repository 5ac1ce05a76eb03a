import { hkdfSync } from 'node:crypto';
import type { ConfigReader } from '@mp/shared-util-config';

export const MASTER_KEY_BYTES = 32;

/**
 * Before keyrings, a service had one master key and sealed everything as version 1, so a
 * deployment that names no version keeps reading its data as it is.
 */
export const LEGACY_KEY_VERSION = 1;

/** key_version columns are PostgreSQL INTEGERs. */
const MAX_KEY_VERSION = 2_147_483_647;

/**
 * A key of its own for one purpose, derived from a service's master key (HKDF-SHA256, RFC 5869),
 * so one master key per service serves several purposes and a key for one purpose never
 * decrypts or authenticates another's data.
 */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  if (masterKey.length !== MASTER_KEY_BYTES) throw new Error(`master key must be ${MASTER_KEY_BYTES} bytes`);
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `mp:${purpose}`, MASTER_KEY_BYTES));
}

/** A sealed value names a key version this service was not given: a deployment problem, never a wrong decryption. */
export class UnknownKeyVersionError extends Error {
  constructor(
    readonly keyVersion: number,
    knownVersions: readonly number[],
    where?: string,
  ) {
    super(
      `secret sealed with key version ${keyVersion}, which is not in the keyring (has ${knownVersions.join(', ')}): configure that version's key as a retired or the next key${where ? ` (${where})` : ''}`,
    );
    this.name = 'UnknownKeyVersionError';
  }
}

/**
 * A service's master keys by version: the current one seals, every one opens what was sealed
 * under its version. Retired keys stay only until the re-seal command (apps/ops rekey) has
 * moved every value to the current key, so a master key can be rotated on a running system.
 */
export class SecretKeyring {
  private readonly keys: ReadonlyMap<number, Buffer>;

  constructor(
    readonly currentVersion: number,
    keys: ReadonlyMap<number, Buffer>,
  ) {
    if (!keys.has(currentVersion)) throw new Error(`keyring has no key for its current key version ${currentVersion}`);
    for (const key of keys.values()) if (key.length !== MASTER_KEY_BYTES) throw new Error(`master key must be ${MASTER_KEY_BYTES} bytes`);
    this.keys = new Map(keys);
  }

  /** One key, nothing retired: what a deployment without rotation has. */
  static single(key: Buffer, version = LEGACY_KEY_VERSION): SecretKeyring {
    return new SecretKeyring(version, new Map([[version, key]]));
  }

  get currentKey(): Buffer {
    return this.keyFor(this.currentVersion);
  }

  /**
   * Versions read but never used to seal, ascending: retired keys, and the next key while a
   * rotation's first step runs. The re-seal moves whatever is under them to the current key.
   */
  get retiredVersions(): number[] {
    return [...this.keys.keys()].filter((version) => version !== this.currentVersion).sort((a, b) => a - b);
  }

  get versions(): number[] {
    return [...this.keys.keys()].sort((a, b) => a - b);
  }

  keyFor(version: number): Buffer {
    const key = this.keys.get(version);
    if (!key) throw new UnknownKeyVersionError(version, this.versions);
    return key;
  }

  /** The same versions, each key replaced by its key for one purpose (see deriveKey). */
  derive(purpose: string): SecretKeyring {
    return new SecretKeyring(this.currentVersion, new Map([...this.keys].map(([version, key]) => [version, deriveKey(key, purpose)])));
  }
}

// Buffer.from(text, 'base64') skips characters it does not know, so a typo would silently become
// a different (usually shorter) key; checking the alphabet first gives the operator a clear message.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A service's keyring from its environment, validated at boot with every problem named at once:
 *
 *   <PREFIX>_MASTER_KEY          the current key, base64 of 32 bytes (required)
 *   <PREFIX>_MASTER_KEY_VERSION  its version, default 1
 *   <PREFIX>_RETIRED_KEYS        "<version>:<base64 key>,..." still readable, default none
 *   <PREFIX>_NEXT_KEY            "<version>:<base64 key>", readable before it becomes current, default none
 *
 * The next key is the first step of a rotation with more than one replica: every replica must be
 * able to read the new key before any replica seals with it, or a replica not yet rolled could
 * not open what a rolled one wrote (docs/operations/master-key-rotation.md). Like a retired key
 * it opens values and never seals; its version must be above the current one.
 * Messages name variables, entries and versions, never key material.
 */
export function readMasterKeyring(reader: ConfigReader, prefix: string, purpose = 'secrets at rest'): SecretKeyring {
  const currentName = `${prefix}_MASTER_KEY`;
  const versionName = `${prefix}_MASTER_KEY_VERSION`;
  const retiredName = `${prefix}_RETIRED_KEYS`;
  const nextName = `${prefix}_NEXT_KEY`;
  const currentText = reader.string(currentName, {
    hint: `base64 of ${MASTER_KEY_BYTES} random bytes, e.g. openssl rand -base64 ${MASTER_KEY_BYTES}`,
    defaultText: 'required (`npm start` generates one)',
    description: `base64 of ${MASTER_KEY_BYTES} bytes: the current key, which seals ${purpose}; \`rekey\` reads it too`,
  });
  const currentVersion = reader.integer(versionName, {
    default: LEGACY_KEY_VERSION,
    min: 1,
    max: MAX_KEY_VERSION,
    description: "the current key's version, recorded in every value it seals",
  });
  const currentKey = currentText === '' ? null : decodeKey(reader, currentName, currentText);

  const keys = new Map<number, Buffer>();
  const entries = reader.list(retiredName, {
    default: '',
    description: '`<version>:<base64 key>,...`: keys still read during a [rotation](master-key-rotation.md), never used to seal',
  });
  entries.forEach((entry, index) => {
    const parsed = parseVersionedKey(reader, `${retiredName} entry ${index + 1}`, entry);
    if (!parsed) return;
    const { version, key } = parsed;
    if (keys.has(version)) return reader.problem(`${retiredName} lists version ${version} twice`);
    if (version === currentVersion)
      return reader.problem(`${retiredName} lists version ${version}, the current ${versionName}: a key is either current or retired`);
    if (key && currentKey?.equals(key))
      return reader.problem(`${retiredName} version ${version} holds the same key as ${currentName}: a rotation needs a new key`);
    if (key) keys.set(version, key);
  });

  const nextEntries = reader.list(nextName, {
    default: '',
    description:
      '`<version>:<base64 key>`: the new key of a [rotation](master-key-rotation.md), read by every replica before any seals with it; its version above the current one',
  });
  if (nextEntries.length > 1) reader.problem(`${nextName} must be one <version>:<base64 key>: a rotation brings in one new key at a time`);
  const next = nextEntries.length === 1 ? parseVersionedKey(reader, nextName, nextEntries[0]) : null;
  if (next) {
    if (next.version <= currentVersion)
      reader.problem(`${nextName} has version ${next.version}: the next key's version must be above ${versionName} (${currentVersion})`);
    else if (keys.has(next.version)) reader.problem(`${nextName} has version ${next.version}, which ${retiredName} lists too`);
    else if (next.key && [currentKey, ...keys.values()].some((key) => key?.equals(next.key as Buffer)))
      reader.problem(`${nextName} holds a key already in use: a rotation needs a new key`);
    else if (next.key) keys.set(next.version, next.key);
  }
  // On any problem the caller's assertValid() throws; this keyring is never used then.
  if (!currentKey) return SecretKeyring.single(Buffer.alloc(MASTER_KEY_BYTES), currentVersion);
  keys.set(currentVersion, currentKey);
  return new SecretKeyring(currentVersion, keys);
}

/** "<version>:<base64 key>"; null (with the problem recorded) when the entry is not that. The key is null when only the key is bad. */
function parseVersionedKey(reader: ConfigReader, where: string, entry: string): { version: number; key: Buffer | null } | null {
  const separator = entry.indexOf(':');
  if (separator < 0) {
    reader.problem(`${where} must be <version>:<base64 key>`);
    return null;
  }
  const versionText = entry.slice(0, separator).trim();
  const version = Number(versionText);
  if (!/^\d+$/.test(versionText) || !Number.isSafeInteger(version) || version < 1 || version > MAX_KEY_VERSION) {
    reader.problem(`${where} has version "${versionText}", which is not a whole number from 1 to ${MAX_KEY_VERSION}`);
    return null;
  }
  return { version, key: decodeKey(reader, `${where} (version ${version})`, entry.slice(separator + 1).trim()) };
}

function decodeKey(reader: ConfigReader, name: string, text: string): Buffer | null {
  if (!BASE64.test(text)) {
    reader.problem(`${name} is not base64 (e.g. openssl rand -base64 ${MASTER_KEY_BYTES})`);
    return null;
  }
  const key = Buffer.from(text, 'base64');
  if (key.length !== MASTER_KEY_BYTES) {
    reader.problem(`${name} must decode to ${MASTER_KEY_BYTES} bytes, got ${key.length}`);
    return null;
  }
  return key;
}
