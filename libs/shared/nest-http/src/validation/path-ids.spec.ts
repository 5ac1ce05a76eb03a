/**
 * Goal: every route parameter of every service goes through one of the shared path-id pipes
 * (the account-number reveal took its ids unchecked, and a NUL byte gave 500, then
 * 503). Method: reads the controllers' source and lists each `@Param` that names no pipe; the
 * payer page's HTML routes are the one exception, checked by hand against the same pattern.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const workspaceRoot = join(__dirname, '../../../../..');

/** The payer page answers a malformed token with an HTML page, so its HTML routes test the pattern themselves. */
const CHECKED_IN_THE_HANDLER = new Set(['libs/gateway/api/src/payer-page/payer-page.controller.ts']);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('route parameters', () => {
  it('each go through a path-id pipe', () => {
    const unchecked: string[] = [];
    for (const file of [...sourceFiles(join(workspaceRoot, 'libs')), ...sourceFiles(join(workspaceRoot, 'apps'))]) {
      const path = relative(workspaceRoot, file);
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/@Param\(\s*(?:'[^']*'\s*)?\)/g)) {
        if (!CHECKED_IN_THE_HANDLER.has(path)) unchecked.push(`${path}: ${match[0]}`);
      }
    }
    expect(unchecked).toEqual([]);
  });
});
