// The test-mode watchdog: a detached helper that stops and removes what a dead parent left running.
// Part of deploy/local/infra.mjs, which is the entry point (API and CLI).

import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { INFRA_CLI_FILE } from './constants.mjs';
import { sleep } from './util.mjs';
import { killProcessesMentioning } from './processes.mjs';
import { removeComponentDir, stopComponent } from './run-dirs.mjs';

////////// Watchdog (test mode)

// Test-mode processes must not outlive this process if it dies (a crash, SIGKILL, Ctrl-C during
// startup). A detached helper reads registrations on a pipe from us; when the pipe reaches EOF
// because we are gone, it stops what is still registered and removes the dirs.
let watchdog = null;
const watchdogEntries = new Set();

function watchdogSend(message) {
  if (!watchdog) {
    watchdog = spawn(process.execPath, [INFRA_CLI_FILE, '__watchdog'], {
      detached: true, // Own process group: a Ctrl-C meant for us must not kill it too.
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    watchdog.on('error', () => {});
    watchdog.stdin.on('error', () => {});
    // Neither the helper nor the pipe may keep this process alive.
    watchdog.unref();
    watchdog.stdin.unref?.();
  }
  watchdog.stdin.write(`${JSON.stringify(message)}\n`);
}

export function watchdogRegister(kind, dir) {
  watchdogEntries.add(dir);
  watchdogSend({ op: 'add', kind, dir });
}

export function watchdogRelease(dir) {
  if (!watchdogEntries.delete(dir) || !watchdog) return;
  watchdogSend({ op: 'remove', dir });
  if (watchdogEntries.size === 0) {
    // Nothing left to guard: let the helper exit (EOF with nothing registered is a no-op).
    watchdog.stdin.end();
    watchdog = null;
  }
}

export async function watchdogMain() {
  const entries = new Map();
  // Ignore terminal signals: we exist precisely to outlive the parent.
  for (const name of ['SIGINT', 'SIGHUP']) process.on(name, () => {});
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const message = JSON.parse(line);
    if (message.op === 'add') entries.set(message.dir, message);
    else entries.delete(message.dir);
  });
  // EOF means the parent is gone. SIGTERM (say, a CI job being torn down) means the same for us.
  await new Promise((resolve) => {
    lines.once('close', resolve);
    process.once('SIGTERM', resolve);
  });
  await Promise.all(
    [...entries.values()].map(async (entry) => {
      await stopComponent(entry);
      await killProcessesMentioning(entry.dir);
      await removeComponentDir(entry.dir);
      // A child that was mid-spawn when the parent died may only show up now: sweep once more.
      await sleep(1_000);
      await killProcessesMentioning(entry.dir);
      await removeComponentDir(entry.dir);
    }),
  );
  process.exit(0);
}
