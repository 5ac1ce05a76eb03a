// Child processes: is one alive and ours, stop it gently then firmly, find leftovers by their directory.
// Part of deploy/local/infra.mjs, which is the entry point (API and CLI).

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { relative, sleep } from './util.mjs';

////////// Processes

/** True when the pid exists and is not a zombie. */
export function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; a zombie has already exited.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // No /proc (not Linux): trust kill(0).
  }
}

/**
 * True when pid is alive and its command line mentions marker (a path of ours). Guards against
 * signalling an unrelated process that reused a pid from a stale pid file.
 */
export function isOurProcess(pid, marker) {
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(marker);
  } catch {
    return true;
  }
}

async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** Asks politely (gentleSignal), then SIGKILLs after graceMs. Returns how it ended. */
export async function terminate(pid, { gentleSignal = 'SIGTERM', graceMs, log, what }) {
  signal(pid, gentleSignal);
  if (await waitForExit(pid, graceMs)) return 'exited';
  log?.(`${what} (pid ${pid}) did not exit within ${graceMs / 1000}s, sending SIGKILL`);
  signal(pid, 'SIGKILL');
  await waitForExit(pid, 5_000);
  return 'killed';
}

/** Pids of live processes whose command line mentions dir (Linux /proc; empty elsewhere). */
function processesMentioning(dir) {
  let entries = [];
  try {
    entries = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return entries.map(Number).filter((pid) => {
    if (pid === process.pid) return false;
    try {
      // dir itself or a path inside it, not a sibling that merely shares the prefix (run-1 / run-12).
      const words = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return words.some((word) => word === dir || word.includes(`${dir}${path.sep}`));
    } catch {
      return false; // Exited meanwhile, or not ours to read.
    }
  });
}

/**
 * Last resort after a crash mid-startup: a broker or postmaster may have started after its pid file
 * was looked at, or an initdb/StorageTool may still be running. Anything mentioning dir goes.
 */
export async function killProcessesMentioning(dir, log) {
  const pids = processesMentioning(dir);
  if (pids.length === 0) return;
  log?.(`stopping leftover processes in ${relative(dir)}: ${pids.join(', ')}`);
  await Promise.all(pids.map((pid) => terminate(pid, { graceMs: 5_000, what: `process ${pid}` })));
}

export async function readPid(file) {
  try {
    const pid = Number.parseInt((await fsp.readFile(file, 'utf8')).split('\n')[0], 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
