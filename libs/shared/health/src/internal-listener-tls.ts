import { unwatchFile, watchFile } from 'node:fs';
import type { Server } from 'node:https';
import { Logger, type INestApplication } from '@nestjs/common';
import { internalTlsOptions, type InternalTls } from '@mp/shared-util-config';
import { DRAINING_HTTP_OPTIONS } from './graceful-shutdown';

/** How often a listener looks for a renewed keystore: cert-manager renews days before expiry, so a minute is plenty. */
const RENEWAL_CHECK_INTERVAL_MS = 60_000;

/** Fastify options of a service's internal listener: HTTPS when INTERNAL_TLS_* are set (docs/operations/internal-tls.md). */
export function internalListenerOptions(tls: InternalTls | null) {
  return tls ? { ...DRAINING_HTTP_OPTIONS, https: internalTlsOptions(tls) } : DRAINING_HTTP_OPTIONS;
}

/** For log lines and self-checks: the scheme the internal listener speaks. */
export const internalListenerScheme = (tls: InternalTls | null): 'https' | 'http' => (tls ? 'https' : 'http');

/**
 * Serves a renewed certificate without a restart: a year of running outlives any certificate,
 * and a Kubernetes Secret or a compose volume is replaced in place when it is renewed. The new
 * keystore applies to new connections; open ones keep theirs until they close. A keystore that
 * cannot be read (caught mid-write, or a wrong password) keeps the current one and is logged; the
 * next change is tried again. Returns the function that stops watching.
 */
export function reloadInternalTlsWhenRenewed(
  server: Pick<Server, 'setSecureContext'>,
  tls: InternalTls | null,
  { logger = new Logger('InternalTls'), intervalMs = RENEWAL_CHECK_INTERVAL_MS }: { logger?: Pick<Logger, 'log' | 'error'>; intervalMs?: number } = {},
): () => void {
  if (!tls) return () => undefined;
  const reload = () => {
    try {
      server.setSecureContext(internalTlsOptions(tls));
      logger.log(`internal listener certificate reloaded from ${tls.keystoreFile}`);
    } catch (error) {
      logger.error(`internal listener kept its certificate: ${tls.keystoreFile} could not be loaded (${(error as Error).message})`);
    }
  };
  // Polling (fs.watchFile) rather than fs.watch: a Secret volume swaps a symlink, which inotify on the file itself misses.
  const options = { interval: intervalMs, persistent: false };
  watchFile(tls.keystoreFile, options, reload);
  watchFile(tls.keystorePasswordFile, options, reload);
  return () => {
    unwatchFile(tls.keystoreFile, reload);
    unwatchFile(tls.keystorePasswordFile, reload);
  };
}

/**
 * Starts a service's internal listener (its Nest app built with internalListenerOptions) and
 * keeps its certificate current; resolves with the URL it serves, for the ready line.
 */
export async function listenInternally(
  app: INestApplication,
  config: { httpHost: string; httpPort: number; internalTls: InternalTls | null },
): Promise<string> {
  await app.listen(config.httpPort, config.httpHost);
  const stopWatching = reloadInternalTlsWhenRenewed(app.getHttpServer() as Server, config.internalTls);
  app.getHttpServer().once('close', stopWatching);
  return `${internalListenerScheme(config.internalTls)}://${config.httpHost}:${config.httpPort}`;
}
