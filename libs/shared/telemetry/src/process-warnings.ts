import type { LoggerService } from '@nestjs/common';

/** Tells whether a process warning is a known, harmless one that no operator should be shown. */
export type WarningFilter = (warning: Error) => boolean;

const ignoredWarnings: WarningFilter[] = [];
/** Whether this process's warnings already go through one of the two functions below. */
let warningsRouted = false;

/**
 * Registers a known, harmless process warning to be dropped, by the module that knows its cause
 * (none is registered today). Each filter should match one cause, by the warning's
 * name and the code that emitted it, so the same kind of warning from anywhere else is still logged.
 */
export function ignoreProcessWarnings(filter: WarningFilter): void {
  ignoredWarnings.push(filter);
}

/**
 * Writes Node's process warnings (deprecations, negative timeouts, listener leaks) through the
 * service's logger, as `warn` lines of the one JSON log format, instead of Node's own
 * `(node:PID) …` lines on stderr, which break a log that is JSON lines. Node prints them from a
 * `warning` listener of its own, which is replaced here.
 */
export function logProcessWarnings(logger: LoggerService, target: NodeJS.EventEmitter = process): void {
  if (target === process) warningsRouted = true;
  target.removeAllListeners('warning');
  target.on('warning', (warning: Error) => {
    if (ignoredWarnings.some((ignored) => ignored(warning))) return;
    logger.warn(`${warning.name}: ${warning.message}`, 'Process');
  });
}

/**
 * For a process without a service logger (the ops commands, the tools, the tests): Node's own
 * `(node:PID) Name: message` lines on stderr, less the ignored warnings. Does nothing once this
 * process's warnings are routed (a service called logProcessWarnings first).
 */
export function printProcessWarningsFiltered(target: NodeJS.EventEmitter = process): void {
  if (target === process) {
    if (warningsRouted) return;
    warningsRouted = true;
  }
  target.removeAllListeners('warning');
  target.on('warning', (warning: Error) => {
    if (ignoredWarnings.some((ignored) => ignored(warning))) return;
    process.stderr.write(`(node:${process.pid}) ${warning.name}: ${warning.message}\n`);
  });
}
