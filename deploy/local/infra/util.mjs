// Small helpers of the local infrastructure: logging, running commands, files.
// Part of deploy/local/infra.mjs, which is the entry point (API and CLI).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { REPO_ROOT } from './constants.mjs';

////////// Small helpers

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const seconds = (startedMs) => `${((Date.now() - startedMs) / 1000).toFixed(1)}s`;
export const relative = (p) => (p.startsWith(REPO_ROOT + path.sep) ? path.relative(REPO_ROOT, p) : p);
export const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

export function defaultLog(line) {
  console.error(`[infra] ${line}`);
}

/** Calls fn once; later calls return the first call's promise (stop() must be idempotent). */
export function once(fn) {
  let promise;
  return () => (promise ??= fn());
}

export async function exists(p) {
  try {
    await fsp.access(p);
    return true;
  } catch {
    return false;
  }
}

/** Finds an executable on PATH (plus the sbin dirs, which non-login root shells may lack). */
export function which(command) {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of [...dirs, '/usr/local/sbin', '/usr/sbin', '/sbin']) {
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return null;
}

/** Absolute path of a base system tool, so a trimmed PATH cannot change which one runs. */
export function systemTool(command) {
  return which(command) ?? ['/usr/bin', '/bin'].map((dir) => path.join(dir, command)).find((file) => fs.existsSync(file)) ?? command;
}

/**
 * Runs a command to completion and returns { code, signal, stdout, stderr } (never rejects on a
 * non-zero exit, callers decide). onLine receives each output line as it arrives, for progress.
 */
export function run(command, args, { cwd, env, onLine } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { stdout: '', stderr: '' };
    for (const stream of ['stdout', 'stderr']) {
      child[stream].setEncoding('utf8');
      child[stream].on('data', (chunk) => (output[stream] += chunk));
      if (onLine) readline.createInterface({ input: child[stream] }).on('line', onLine);
    }
    child.on('error', (error) => reject(new Error(`could not run ${command}: ${error.message}`)));
    child.on('close', (code, signal) => resolve({ code, signal, ...output }));
  });
}

/** Like run(), but throws with the command's output when it exits non-zero. */
export async function runChecked(command, args, options = {}) {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    const output = `${result.stdout}\n${result.stderr}`.trim();
    throw new Error(`${path.basename(command)} ${args.join(' ')} failed (exit ${result.code ?? result.signal})\n${output}`);
  }
  return result;
}

/** The last lines of a (possibly large) log file, for error messages. */
async function tailFile(file, lineCount = 40) {
  try {
    const handle = await fsp.open(file, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, 64 * 1024);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      return buffer.toString('utf8').split('\n').slice(-lineCount).join('\n').trimEnd();
    } finally {
      await handle.close();
    }
  } catch (error) {
    return `(could not read ${file}: ${error.code ?? error.message})`;
  }
}

export async function withLogTail(message, file) {
  return new Error(`${message}\n--- last lines of ${file} ---\n${await tailFile(file)}`);
}
