/**
 * Runs one service for the local launcher (start.mjs): a process of its built JavaScript with
 * stdout and stderr in a log file, ready when its health path (from the service catalog)
 * answers, restarted with backoff when it crashes, stopped on request.
 *
 * Restart policy, hand-written because it is a supervisor's and not a retry's (the
 * exponential-backoff package retries one call until it succeeds; it has no notion of a process
 * that ran fine for an hour and then died, which must not inherit the delays of earlier crashes):
 * - after a crash the service is started again after 1 s, then 2, 4, 8 s… (at most 30 s) while
 *   the crashes come quickly;
 * - a crash after the service stayed up for RESTART_POLICY.stableAfterMs (1 min) counts as the
 *   first again;
 * - the RESTART_POLICY.maxQuickCrashes-th crash in a row within a minute of starting (5) is given
 *   up on: onGiveUp is called and the launcher stops everything, saying why.
 * A start that fails (exits, or is not healthy in time) counts as a quick crash.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

export const RESTART_POLICY = {
  firstDelayMs: 1_000,
  maxDelayMs: 30_000,
  stableAfterMs: 60_000,
  maxQuickCrashes: 5,
  healthyWithinMs: 90_000,
  stopGraceMs: 15_000,
};

/** What to do after a crash: restart after `delayMs`, or give up. Pure, so the policy reads in one place. */
export function afterCrash(policy, { quickCrashesBefore, uptimeMs }) {
  const quickCrashes = uptimeMs >= policy.stableAfterMs ? 1 : quickCrashesBefore + 1;
  if (quickCrashes >= policy.maxQuickCrashes) return { quickCrashes, giveUp: true };
  return { quickCrashes, giveUp: false, delayMs: Math.min(policy.firstDelayMs * 2 ** (quickCrashes - 1), policy.maxDelayMs) };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const describeExit = ({ code, signal }) => (signal ? `signal ${signal}` : `exit code ${code}`);
const duration = (ms) => (ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`);

export class ServiceSupervisor {
  /**
   * @param {object} options
   * @param {string} options.name        service name, e.g. payments
   * @param {string} options.script      built entry point (dist/…/main.js)
   * @param {Record<string,string>} options.env  the process's whole environment
   * @param {number} options.port        where the service listens
   * @param {string} options.healthPath  what answers 2xx once it is ready (the catalog's health.ready)
   * @param {string} options.logFile     stdout and stderr, appended
   * @param {string} options.logLabel    how the log is named in messages (a relative path)
   * @param {(line: string) => void} options.say       one line for the terminal
   * @param {(service: ServiceSupervisor) => void} options.onReady   after every (re)start
   * @param {(reason: string) => void} options.onGiveUp
   * @param {object} [options.policy]
   */
  constructor(options) {
    this.options = { policy: RESTART_POLICY, ...options };
    this.child = null;
    this.exited = null;
    this.stopping = false;
    // Crashes are restarted only once the service has started: a first start that fails fails
    // the launcher's start-up instead, with the log's last lines.
    this.supervising = false;
    this.quickCrashes = 0;
    this.restartTimer = null;
    this.restarts = 0;
  }

  get name() {
    return this.options.name;
  }

  get pid() {
    return this.child?.pid ?? null;
  }

  get url() {
    return `http://127.0.0.1:${this.options.port}`;
  }

  /** Starts the process and resolves once it is healthy; rejects with the end of its log if it is not. */
  async start() {
    const { script, env, logFile } = this.options;
    this.note('info', `starting ${this.name}`);
    const logFd = openSync(logFile, 'a', 0o600);
    // Its own process group: a Ctrl-C in the terminal reaches only the launcher, which stops the
    // services itself (one signal each, so Nest shuts down once and in order).
    const child = spawn(process.execPath, ['--enable-source-maps', script], { env, stdio: ['ignore', logFd, logFd], detached: true });
    closeSync(logFd);
    this.child = child;
    const startedAt = Date.now();
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.once('error', (error) => this.note('error', `could not start ${this.name}: ${error.message}`));
    this.exited.then((exit) => this.onExit(child, exit, startedAt));
    await this.waitUntilHealthy(child);
    this.supervising = true;
    this.options.onReady(this);
  }

  async waitUntilHealthy(child) {
    const deadline = Date.now() + this.options.policy.healthyWithinMs;
    let exit = null;
    this.exited.then((value) => (exit = value));
    while (!exit && !this.stopping) {
      const healthy = await fetch(`${this.url}${this.options.healthPath}`, { signal: AbortSignal.timeout(1_000) }).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) return;
      if (Date.now() > deadline) {
        const message = `${this.name} was not healthy within ${this.options.policy.healthyWithinMs / 1000} s; killing it`;
        this.note('error', message);
        if (this.supervising) this.options.say(message);
        child.kill('SIGKILL');
        throw new Error(
          `${this.name} was not healthy within ${this.options.policy.healthyWithinMs / 1000} s; the end of ${this.options.logLabel}:\n${this.logTail()}`,
        );
      }
      await sleep(200);
    }
    if (this.stopping) throw new Error(`${this.name} was stopped while starting`);
    throw new Error(`${this.name} exited while starting (${describeExit(exit)}); the end of ${this.options.logLabel}:\n${this.logTail()}`);
  }

  /** A crash after the service was started: report it in one line, then restart or give up. */
  onExit(child, exit, startedAt) {
    if (this.child !== child || this.stopping || !this.supervising) return;
    const uptimeMs = Date.now() - startedAt;
    const decision = afterCrash(this.options.policy, { quickCrashesBefore: this.quickCrashes, uptimeMs });
    this.quickCrashes = decision.quickCrashes;
    this.note('error', `${this.name} exited unexpectedly (${describeExit(exit)}) after ${duration(uptimeMs)}`);
    const what = `${this.name} crashed (${describeExit(exit)}) after ${duration(uptimeMs)} up`;
    if (decision.giveUp) {
      this.options.onGiveUp(
        `${what}: ${decision.quickCrashes} crashes in a row, each within ${duration(this.options.policy.stableAfterMs)} of starting; not restarting it (log ${this.options.logLabel})`,
      );
      return;
    }
    this.options.say(`${what}; restarting in ${duration(decision.delayMs)}  log ${this.options.logLabel}`);
    this.restartTimer = setTimeout(() => this.restart(), decision.delayMs);
  }

  async restart() {
    this.restartTimer = null;
    if (this.stopping) return;
    this.restarts += 1;
    // A failed restart is a crash like any other: onExit has reported it and decided what next.
    await this.start().catch(() => undefined);
  }

  /** SIGTERM (Nest's graceful shutdown), SIGKILL after the grace period. No restart after this. */
  async stop() {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const exit = await Promise.race([this.exited, sleep(this.options.policy.stopGraceMs).then(() => null)]);
    if (!exit) {
      this.options.say(`${this.name} did not stop within ${this.options.policy.stopGraceMs / 1000} s; killing it`);
      child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** A line of the launcher's own in the service's log, a JSON object like the services' pino lines (level, ISO time, context, message). */
  note(level, message) {
    const fd = openSync(this.options.logFile, 'a', 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ level, time: new Date().toISOString(), context: 'launcher', message })}\n`);
    } finally {
      closeSync(fd);
    }
  }

  logTail(lines = 20) {
    try {
      return readFileSync(this.options.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }
}
