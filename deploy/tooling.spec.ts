/**
 * Goal: the scripts in tools/ and deploy/ are checked like the rest of the workspace. Both are
 * Nx projects (so `nx show projects` lists them and module boundaries apply), and both the
 * `npm run lint` script and the lint step of `npm test` lint them; the ESLint config ignores
 * none of their files.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repositoryRoot = resolve(__dirname, '..');
const read = (path: string) => readFileSync(join(repositoryRoot, path), 'utf8');
const lintedDirectories = (command: string) => /eslint\S* ([a-z ]+?) --max-warnings/.exec(command)?.[1].split(' ') ?? [];

describe('tools/ and deploy/ under lint and Nx', () => {
  it('are Nx projects', () => {
    expect(JSON.parse(read('tools/project.json')).name).toBe('tools');
    expect(JSON.parse(read('deploy/project.json')).name).toBe('deploy');
  });

  it('are linted by `npm run lint` and by the lint step of `npm test`', () => {
    const lintScript: string = JSON.parse(read('package.json')).scripts.lint;
    expect(lintedDirectories(lintScript)).toEqual(expect.arrayContaining(['apps', 'libs', 'bench', 'tools', 'deploy']));
    expect(lintedDirectories(read('tools/test.mjs'))).toEqual(expect.arrayContaining(['apps', 'libs', 'bench', 'tools', 'deploy']));
  });

  it('have no file the ESLint config ignores', () => {
    const eslint = join(repositoryRoot, 'node_modules/.bin/eslint');
    for (const file of ['deploy/local/infra.mjs', 'deploy/local/start.mjs', 'tools/test.mjs']) {
      const config = JSON.parse(execFileSync(eslint, ['--print-config', file], { cwd: repositoryRoot, encoding: 'utf8' }) || 'null');
      expect({ file, linted: config !== null && config !== undefined }).toEqual({ file, linted: true });
    }
  });
});
