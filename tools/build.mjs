#!/usr/bin/env node
/**
 * Compiles one project's TypeScript (src/**, without tests) to JavaScript under dist/<project
 * root>/src, which is what services and tools run: no TypeScript loader at run time.
 *
 *   node tools/build.mjs libs/shared/messaging
 *
 * It is the `build` target of every project (tools/nx/build-target.cjs), so Nx caches it and
 * builds a project's dependencies first; `npm run build` builds everything.
 *
 * SWC with the workspace's .swcrc, the same transform the tests use. The workspace aliases
 * (`@mp/...` in tsconfig.base.json) are rewritten at compile time into relative requires
 * (jsc.paths): dist/ mirrors the source tree, so `@mp/shared-util-config` in
 * apps/ledger/src/main.ts becomes `../../../libs/shared/util-config/src`, which resolves to the
 * built index.js. The output is plain CommonJS that `node file.js` runs with no resolver hook or
 * flag, whoever spawns it (npm start, tests, benchmarks).
 */
import { transformFile } from '@swc/core';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const projectRoot = process.argv[2];
if (!projectRoot) {
  console.error('usage: node tools/build.mjs <project root, e.g. apps/ledger>');
  process.exit(2);
}
const sourceDir = join(root, projectRoot, 'src');
const outputDir = join(root, 'dist', projectRoot, 'src');
const isTest = (file) => file.endsWith('.spec.ts') || file.endsWith('.d.ts');

async function sources(dir) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : [join(dir, entry.name)])));
  return nested.flat().filter((file) => file.endsWith('.ts') && !isTest(file));
}

const swcrc = JSON.parse(await readFile(join(root, '.swcrc'), 'utf8'));
const { paths } = JSON.parse(await readFile(join(root, 'tsconfig.base.json'), 'utf8')).compilerOptions;
const options = { ...swcrc, swcrc: false, sourceMaps: true, jsc: { ...swcrc.jsc, baseUrl: root, paths } };

const startedAt = Date.now();
// Whatever was built before goes: a deleted source must not leave a runnable stale file behind.
await rm(outputDir, { recursive: true, force: true });
const files = await sources(sourceDir);
await Promise.all(
  files.map(async (file) => {
    const target = join(outputDir, relative(sourceDir, file)).replace(/\.ts$/, '.js');
    const { code, map } = await transformFile(file, { ...options, filename: file, outputPath: target, sourceFileName: relative(dirname(target), file) });
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, `${code}\n//# sourceMappingURL=${basename(target)}.map\n`);
    if (map) await writeFile(`${target}.map`, map);
  }),
);
console.log(`built ${projectRoot}: ${files.length} files in ${Date.now() - startedAt} ms`);
