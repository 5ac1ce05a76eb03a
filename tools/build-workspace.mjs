/**
 * Builds the workspace's JavaScript (dist/) through Nx, which skips every project whose sources
 * did not change since its last build (see tools/nx/build-target.cjs). Used by npm start, npm
 * test (once, before any test spawns a service) and the tools that run a built entry point.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The built JavaScript of a TypeScript entry point: apps/ledger/src/main.ts → <root>/dist/apps/ledger/src/main.js. */
export function builtEntry(source) {
  return join(root, 'dist', source.replace(/\.ts$/, '.js'));
}

/** The Nx project a source file belongs to: the name in the nearest project.json above it. */
export function projectOf(source) {
  for (let dir = dirname(join(root, source)); dir.startsWith(root) && dir !== root; dir = dirname(dir)) {
    const projectFile = join(dir, 'project.json');
    if (existsSync(projectFile)) return JSON.parse(readFileSync(projectFile, 'utf8')).name;
  }
  throw new Error(`${source} is in no Nx project`);
}

/**
 * `nx run-many -t build` (for `projects`, or all) with Nx's output in `logFile` (or inherited when
 * none). No Nx daemon: nothing may keep running after the command that asked for a build.
 * Resolves with the run's duration; rejects naming the log when the build fails.
 */
export function build({ projects, logFile } = {}) {
  const startedAt = Date.now();
  const args = [
    join(root, 'node_modules/nx/dist/bin/nx.js'),
    'run-many',
    '-t',
    'build',
    '--output-style=static',
    ...(projects ? ['-p', projects.join(',')] : []),
  ];
  let log = null;
  if (logFile) {
    mkdirSync(dirname(logFile), { recursive: true });
    log = createWriteStream(logFile, { mode: 0o600 });
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false', NX_TUI: 'false', NX_NO_CLOUD: 'true' },
      stdio: ['ignore', log ? 'pipe' : 'inherit', log ? 'pipe' : 'inherit'],
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      log?.end();
      if (code === 0) resolve({ ms: Date.now() - startedAt });
      else reject(new Error(`the build failed (${signal ?? `exit code ${code}`})${logFile ? `; see ${logFile}` : ''}`));
    });
  });
}

/**
 * Builds the project of one TypeScript module (a no-op when nothing changed) and loads its built
 * JavaScript: how a plain .mjs script uses workspace code, with no TypeScript loader
 * (`const { signatureHeaders } = await importBuilt('libs/sdk/src/signing.ts')`).
 */
export async function importBuilt(source, { logFile = join(root, '.local/build.log') } = {}) {
  await build({ projects: [projectOf(source)], logFile });
  // The build is CommonJS: its exports are the module's default.
  return (await import(pathToFileURL(builtEntry(source)).href)).default;
}
