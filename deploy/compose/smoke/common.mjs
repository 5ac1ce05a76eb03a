// What every step of the compose smoke test shares: settings, a step's timing and checks, and child processes.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importBuilt } from '../../../tools/build-workspace.mjs';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const PROJECT = process.env.COMPOSE_SMOKE_PROJECT ?? 'mp-smoke';
/** The public images the build and the stack start from, with their pinned tags: the Dockerfile's NODE_IMAGE and the compose file's postgres and Kafka. */
export const BASE_IMAGES = [
  /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))[1],
  ...new Set([...readFileSync(join(root, 'docker-compose.yml'), 'utf8').matchAll(/^\s+image: ((?:postgres|apache\/kafka):\S+)$/gm)].map(([, image]) => image)),
];
export const LONG_RUNNING = ['postgres', 'kafka', 'gateway', 'payments', 'ledger', 'withdrawals', 'disputes', 'callbacks'];
export const LOAD_SECONDS = Number(process.env.COMPOSE_SMOKE_LOAD_SECONDS ?? 15);
/** Two replicas of each, one of which is killed before the load: the other must take over its partitions. */
export const SCALE = ['--scale', 'payments=2', '--scale', 'ledger=2'];
export const LOAD_RATE = Number(process.env.COMPOSE_SMOKE_RATE ?? 10);
export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
export const timings = [];
export const say = (line) => console.log(`[compose:smoke] ${line}`);
/** The merchant's requests are signed by the merchant SDK's signer (libs/sdk/src/signing.ts), built on this machine first. */
export const { signatureHeaders } = await importBuilt('libs/sdk/src/signing.ts');

export class SmokeFailure extends Error {}
export function check(condition, message) {
  if (!condition) throw new SmokeFailure(message);
}

export async function timed(step, work) {
  const startedAt = Date.now();
  say(`${step} ...`);
  const result = await work();
  const seconds = (Date.now() - startedAt) / 1000;
  timings.push([step, seconds]);
  say(`${step}: done in ${seconds.toFixed(1)} s`);
  return result;
}

export function run(command, args, { env = process.env, quiet = false, allowFailure = false } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (!quiet) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
      if (!quiet) process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 || allowFailure) resolvePromise({ code, output });
      else reject(new SmokeFailure(`${command} ${args.join(' ')} exited with ${code}\n${quiet ? output.split('\n').slice(-40).join('\n') : ''}`));
    });
  });
}

export const dockerWorks = () => spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
export const imagePresent = (image) => spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' }).status === 0;

/** `docker compose` (v2) where the CLI has it, else Debian's docker-compose 1.29; probed once. */
export let composeCommandFound = null;
export function composeCommand() {
  composeCommandFound ??= findComposeCommand();
  return composeCommandFound;
}

export function findComposeCommand() {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) return ['docker', ['compose']];
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) return ['docker-compose', []];
  throw new SmokeFailure('neither `docker compose` nor `docker-compose` is installed');
}
