/**
 * Goal: deploy/local/infra.mjs stays an entry point of readable size, its parts split by
 * concern under deploy/local/infra/, while what its callers use does not change: the exported
 * API (tools/test.mjs, the test harness and `npm start` import it) and the CLI's usage line.
 * Starting and stopping the infrastructure itself is covered by the launcher's end-to-end test
 * (apps/system-e2e/src/local-launcher.e2e.spec.ts), which runs it in test mode.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const localDir = resolve(__dirname);
const lineCount = (file: string) => readFileSync(file, 'utf8').split('\n').length;
/** Above any one concern's size as the formatter wraps it (160 columns), far below the 1,300 lines of the file before the split. */
const MAX_LINES = 500;

describe('deploy/local/infra.mjs split by concern', () => {
  it('exports the same API as before', () => {
    const script = `import(${JSON.stringify(join(localDir, 'infra.mjs'))}).then((m) => console.log(Object.keys(m).sort().join(',')))`;
    expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim()).toBe('ensureDatabases,freePorts,startInfra,startKafka,startPostgres');
  });

  it('keeps its CLI: an unknown command prints the usage and exits with 2', () => {
    const result = spawnSync(process.execPath, [join(localDir, 'infra.mjs'), 'sideways'], { encoding: 'utf8' });
    expect({ status: result.status, stderr: result.stderr }).toEqual({
      status: 2,
      stderr:
        'usage: node deploy/local/infra.mjs up [--mode dev|test] [--verbose]\n       node deploy/local/infra.mjs down\n       node deploy/local/infra.mjs secured-kafka --users NAME[,NAME…]\n',
    });
  });

  it('has no part longer than the limit', () => {
    const parts = [join(localDir, 'infra.mjs'), ...readdirSync(join(localDir, 'infra')).map((name) => join(localDir, 'infra', name))];
    const tooLong = parts.filter((file) => lineCount(file) > MAX_LINES).map((file) => `${file}: ${lineCount(file)} lines`);
    expect(tooLong).toEqual([]);
  });
});
