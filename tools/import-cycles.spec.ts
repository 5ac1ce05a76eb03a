/**
 * Goal: the libraries import in one direction. No source file of libs/ reaches itself through
 * its imports (type-only imports count: they tie the files together just the same), no library
 * reaches itself through other libraries, and a contract (libs/contracts) holds no
 * implementation of a call: no fetch, no HTTP client, only the types and checks both sides share.
 * Method: every `libs/<context>/<lib>/src` file's imports are read with TypeScript's own
 * pre-processor (`ts.preProcessFile`, which is what the compiler uses; no import-cycle lint
 * plugin is installed), `@mp/...` aliases resolved through tsconfig.base.json, and the graph is
 * searched for a cycle, once by file and once by library.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const root = resolve(__dirname, '..');
const aliases: Record<string, string[]> = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')).compilerOptions.paths;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  const target = aliases[specifier]?.[0];
  if (target) return join(root, target);
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

/** Each libs source file (workspace-relative) with the workspace files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const context of readdirSync(join(root, 'libs'))) {
    for (const lib of readdirSync(join(root, 'libs', context))) {
      const src = join(root, 'libs', context, lib, 'src');
      if (!existsSync(src)) continue;
      for (const file of sourceFiles(src)) {
        const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
        const targets = imports.map((entry) => resolveImport(file, entry.fileName)).filter((target): target is string => target !== undefined);
        graph.set(relative(root, file), targets.map((target) => relative(root, target)));
      }
    }
  }
  return graph;
}

/** Every cycle found by a depth-first search, each as the path that closes it. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (node: string): void => {
    const seenAt = onPath.indexOf(node);
    if (seenAt >= 0) {
      cycles.push([...onPath.slice(seenAt), node]);
      return;
    }
    if (done.has(node)) return;
    onPath.push(node);
    for (const next of graph.get(node) ?? []) visit(next);
    onPath.pop();
    done.add(node);
  };
  for (const node of graph.keys()) visit(node);
  return cycles;
}

const libraryOf = (file: string) => file.split('/').slice(0, 3).join('/');

describe('import direction in libs/', () => {
  const graph = importGraph();

  it('reads the libraries (the scan is not empty)', () => {
    expect(graph.get('libs/ledger/domain/src/ledger.decider.ts')).toContain('libs/ledger/domain/src/ledger-conversions.ts');
  });

  it('has no file that imports itself through other files', () => {
    expect(cyclesOf(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('has no library that depends on itself through other libraries', () => {
    const libraries = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = libraryOf(file);
      const others = targets.map(libraryOf).filter((to) => to !== from);
      libraries.set(from, [...new Set([...(libraries.get(from) ?? []), ...others])]);
    }
    expect(cyclesOf(libraries).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('keeps calls out of the contracts: no contract file fetches or imports an HTTP client', () => {
    const calling = [...graph.keys()]
      .filter((file) => file.startsWith('libs/contracts/'))
      .filter((file) => {
        const text = readFileSync(join(root, file), 'utf8');
        const imports = ts.preProcessFile(text, true, true).importedFiles.map((entry) => entry.fileName);
        return /\bfetch\s*\(/.test(text) || imports.some((name) => /^(node:)?(http|https|http2)$|^(axios|undici|got)$/.test(name));
      });
    expect(calling).toEqual([]);
  });
});
