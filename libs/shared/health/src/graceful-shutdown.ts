import { Logger, type INestApplication } from '@nestjs/common';
import { Readiness } from './readiness';

const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Fastify options for every service's HTTP server, so a drain is graceful for callers too. By
 * default Fastify answers a request that arrives on an open connection while the server closes
 * with a fixed 503 (no request id, not the error model's body), which a caller cannot tell from
 * a failure; with this it is answered in full, with `Connection: close`, and the close waits for
 * it (bounded by SHUTDOWN_GRACE_MS). The database pools close only after the HTTP server.
 */
export const DRAINING_HTTP_OPTIONS = { return503OnClosing: false } as const;

/**
 * Instead of `app.enableShutdownHooks()`, which closes the app and then kills the process with
 * the same signal again (exit status 143, which an orchestrator reads as a failure). On SIGTERM
 * or SIGINT: readiness goes false at once; then Nest's close runs in its order: the HTTP server
 * stops taking connections and finishes the requests in hand, each consumer finishes the batch
 * in hand, commits its offsets and leaves its group, then the shutdown hooks close the
 * producer, the outbox relay, workers and the database pool. Exits 0 when that is done, 1 when
 * it takes longer than `shutdownGraceMs` (whatever is unfinished is redelivered: the inbox
 * absorbs a message handled twice).
 */
export function exitGracefullyOnSignals(app: INestApplication, options: { shutdownGraceMs: number; logger?: Logger; afterClose?: () => Promise<void> }): void {
  const logger = options.logger ?? new Logger('Shutdown');
  let started = false;
  const shutDown = (signal: string) => {
    if (started) return;
    started = true;
    const startedAt = Date.now();
    app.get(Readiness).markShuttingDown();
    logger.log(`${signal}: not ready any more, finishing work in hand (at most ${options.shutdownGraceMs} ms)`);
    const deadline = setTimeout(() => {
      logger.error(`shutdown took longer than ${options.shutdownGraceMs} ms: exiting with work unfinished`);
      process.exit(1);
    }, options.shutdownGraceMs);
    deadline.unref();
    // afterClose (e.g. sending the last spans) runs once the app is closed, inside the same bound.
    app
      .close()
      .then(async () => options.afterClose?.())
      .then(
        () => {
          logger.log(`stopped cleanly in ${Date.now() - startedAt} ms`);
          process.exit(0);
        },
        (error: unknown) => {
          logger.error(`shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          process.exit(1);
        },
      );
  };
  for (const signal of SHUTDOWN_SIGNALS) process.once(signal, () => shutDown(signal));
}
