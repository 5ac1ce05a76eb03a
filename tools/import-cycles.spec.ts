/**
 * Goal: the code imports in one direction. No source file of libs/ or apps/ (`.ts` and `.tsx`,
 * the console's React views included) reaches itself through its imports (type-only imports
 * count: they tie the files together just the same), no project reaches itself through other
 * projects, and a contract (libs/contracts) holds no implementation of a call: no fetch, no HTTP
 * client, only the types and checks both sides share.
 * Method: every `libs/<context>/<lib>/src` and `apps/<app>/src` file's imports are read with
 * TypeScript's own pre-processor (`ts.preProcessFile`, which is what the compiler uses; no
 * import-cycle lint plugin is installed), `@mp/...` aliases resolved through tsconfig.base.json,
 * and the graph is searched for a cycle, once by file and once by project. The search itself is
 * shown to find a cycle, in a graph and in files written for the purpose.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const root = resolve(__dirname, '..');
const aliases: Record<string, string[]> = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')).compilerOptions.paths;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.spec\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  const target = aliases[specifier]?.[0];
  if (target) return join(root, target);
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')].find((candidate) => existsSync(candidate));
}

/** The source folders of the workspace's projects: `libs/<context>/<lib>/src` and `apps/<app>/src`. */
function projectSources(): string[] {
  const libs = readdirSync(join(root, 'libs')).flatMap((context) =>
    readdirSync(join(root, 'libs', context)).map((lib) => join(root, 'libs', context, lib, 'src')),
  );
  const apps = readdirSync(join(root, 'apps')).map((app) => join(root, 'apps', app, 'src'));
  return [...libs, ...apps].filter((src) => existsSync(src));
}

/** Each source file under `sources` (relative to `base`) with the files it imports. */
function importGraph(sources: string[], base = root): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources.flatMap(sourceFiles)) {
    const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
    const targets = imports.map((entry) => resolveImport(file, entry.fileName)).filter((target): target is string => target !== undefined);
    graph.set(
      relative(base, file),
      targets.map((target) => relative(base, target)),
    );
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

/** `libs/<context>/<lib>` or `apps/<app>`. */
const projectOf = (file: string) =>
  file
    .split('/')
    .slice(0, file.startsWith('apps/') ? 2 : 3)
    .join('/');

describe('the cycle search', () => {
  it('finds a cycle in a graph, and none in a graph without one', () => {
    const cyclic = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cyclesOf(cyclic)).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['d', ['a', 'c']],
        ]),
      ),
    ).toEqual([]);
  });

  it('finds a cycle between .tsx files through a type-only import, as the console had (App.tsx <-> a view)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    try {
      writeFileSync(join(dir, 'App.tsx'), "import { routes } from './views';\nexport interface Route { path: string }\nexport const all = routes;\n");
      writeFileSync(join(dir, 'views.tsx'), "import type { Route } from './App';\nexport const routes: Route[] = [];\n");
      writeFileSync(join(dir, 'leaf.ts'), 'export const leaf = 1;\n');
      expect(cyclesOf(importGraph([dir], dir))).toEqual([['App.tsx', 'views.tsx', 'App.tsx']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('import direction in libs/ and apps/', () => {
  const graph = importGraph(projectSources());

  it('reads the libraries and the apps, .ts and .tsx (the scan is not empty)', () => {
    expect(graph.get('libs/ledger/domain/src/ledger.decider.ts')).toContain('libs/ledger/domain/src/ledger-conversions.ts');
    expect(graph.get('apps/console/src/main.tsx')).toContain('apps/console/src/app/App.tsx');
    expect(graph.get('apps/gateway/src/main.ts')?.length).toBeGreaterThan(0);
  });

  it('has no file that imports itself through other files', () => {
    expect(cyclesOf(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('has no project that depends on itself through other projects', () => {
    const projects = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = projectOf(file);
      const others = targets.map(projectOf).filter((to) => to !== from);
      projects.set(from, [...new Set([...(projects.get(from) ?? []), ...others])]);
    }
    expect(cyclesOf(projects).map((cycle) => cycle.join(' -> '))).toEqual([]);
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
