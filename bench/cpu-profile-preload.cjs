/**
 * Preloaded (`--require`) into each service when the benchmark runs with `--cpu-prof DIR`.
 *
 * V8 writes a `--cpu-prof` profile only when the process exits on its own or through
 * `process.exit`. On SIGTERM, Nest's shutdown hooks close the app and then raise the signal
 * again, which ends the process by signal and loses the profile. With this listener present
 * the raised signal no longer terminates the process, and it exits normally once Nest has
 * had time to close; the profile is written then.
 */
'use strict';
process.once('SIGTERM', () => {
  setTimeout(() => process.exit(0), 3000);
});
