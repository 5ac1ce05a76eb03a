/**
 * Goal: `npm ci` accepts the committed lock on every platform a user or an image build runs on.
 * npm writes a package's optional native binaries (one per OS and CPU, e.g. @swc/core-darwin-arm64)
 * into the lock only when it resolves them all; a lock that holds just this machine's binary is
 * rejected by `npm ci` as out of sync, and `npm install` rewrites it, leaving a fresh clone dirty.
 * Method: read package-lock.json and check that every optional dependency of every locked package
 * is itself locked, at the top level or nested under its dependent.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

interface LockedPackage {
  optionalDependencies?: Record<string, string>;
}

const repositoryRoot = resolve(__dirname, '../../..');
const lock = JSON.parse(readFileSync(join(repositoryRoot, 'package-lock.json'), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
};

describe('package-lock.json', () => {
  it('is a lockfile v3 with a packages map', () => {
    expect(lock.lockfileVersion).toBe(3);
    expect(Object.keys(lock.packages).length).toBeGreaterThan(100);
  });

  it('locks every optional dependency of every package, for every platform', () => {
    const missing: string[] = [];
    for (const [location, locked] of Object.entries(lock.packages)) {
      for (const name of Object.keys(locked.optionalDependencies ?? {})) {
        const nested = location === '' ? `node_modules/${name}` : `${location}/node_modules/${name}`;
        if (!lock.packages[nested] && !lock.packages[`node_modules/${name}`]) missing.push(`${location || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('locks the native SWC compiler for macOS, Windows and ARM Linux, not only this machine', () => {
    for (const platform of ['darwin-arm64', 'darwin-x64', 'linux-arm64-gnu', 'linux-x64-gnu', 'win32-x64-msvc']) {
      expect(lock.packages[`node_modules/@swc/core-${platform}`]).toBeDefined();
    }
  });
});
