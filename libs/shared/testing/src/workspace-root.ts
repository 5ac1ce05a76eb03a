import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The workspace's root directory: the nearest ancestor of this file with an nx.json. Found by
 * walking up rather than a fixed '../..' because this code runs both from its source (jest)
 * and from its build under dist/ (the benchmark, tools), which sit at different depths.
 * Hand-written: Nx's own `workspaceRoot` starts from the process's cwd, not from this file.
 */
export const workspaceRoot = findWorkspaceRoot(__dirname);

function findWorkspaceRoot(start: string): string {
  for (let directory = start; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'nx.json'))) return directory;
    if (dirname(directory) === directory) throw new Error(`no nx.json above ${start}: not inside the workspace`);
  }
}
