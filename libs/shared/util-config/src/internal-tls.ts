/**
 * TLS on a service's internal HTTP listener (docs/operations/internal-tls.md): the listener the
 * other services call with service tokens, and that serves webhook secrets to the callback
 * dispatcher. Off when neither setting is given (a mesh or a loopback-only deployment), on when
 * both are; one without the other is a configuration error, never a silent fallback to clear text.
 *
 * A PKCS#12 keystore rather than PEM files: keytool, which makes the Kafka broker's material in
 * the same init step, writes PKCS#12 and cannot export a private key as PEM; cert-manager writes
 * the same format (`keystores.pkcs12`) in Kubernetes. The callers trust the CA through Node's own
 * NODE_EXTRA_CA_CERTS, so no client needs code of its own.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { ConfigReader } from './config';

export interface InternalTls {
  /** The listener's key and certificate chain, PKCS#12 (INTERNAL_TLS_KEYSTORE_FILE). */
  keystoreFile: string;
  /** The file holding the keystore's password (INTERNAL_TLS_KEYSTORE_PASSWORD_FILE). */
  keystorePasswordFile: string;
}

export interface InternalTlsConfig {
  /** null: the internal listener speaks clear HTTP. */
  internalTls: InternalTls | null;
}

/** TLS 1.2 is the floor the Kafka listeners use too; 1.3 is negotiated whenever both ends have it. */
const MIN_TLS_VERSION = 'TLSv1.2';

/** The keystore as Node's TLS reads it, read anew each time (a renewed certificate replaces the files in place). */
export function internalTlsOptions(tls: InternalTls): SecureContextOptions {
  return { pfx: readFileSync(tls.keystoreFile), passphrase: readFileSync(tls.keystorePasswordFile, 'utf8').trim(), minVersion: MIN_TLS_VERSION };
}

export function readInternalTlsConfig(reader: ConfigReader): InternalTlsConfig {
  const keystoreFile = reader.optionalString('INTERNAL_TLS_KEYSTORE_FILE', {
    description:
      'PKCS#12 keystore (key and certificate chain) of the internal HTTP listener: HTTPS when set, with its password file (docs/operations/internal-tls.md)',
  });
  const keystorePasswordFile = reader.optionalString('INTERNAL_TLS_KEYSTORE_PASSWORD_FILE', {
    description: 'file holding the password of INTERNAL_TLS_KEYSTORE_FILE; set both or neither',
  });
  if (keystoreFile === undefined && keystorePasswordFile === undefined) return { internalTls: null };
  if (keystoreFile === undefined || keystorePasswordFile === undefined) {
    reader.problem('INTERNAL_TLS_KEYSTORE_FILE and INTERNAL_TLS_KEYSTORE_PASSWORD_FILE go together: set both for TLS on the internal listener, or neither');
    return { internalTls: null };
  }
  const tls = { keystoreFile, keystorePasswordFile };
  try {
    // At boot, so a wrong password or a damaged store stops the service with its setting's name
    // instead of failing every caller's handshake later.
    createSecureContext(internalTlsOptions(tls));
  } catch (error) {
    reader.problem(`INTERNAL_TLS_KEYSTORE_FILE ${keystoreFile} cannot be used with the password in ${keystorePasswordFile}: ${(error as Error).message}`);
  }
  return { internalTls: tls };
}
