import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { MERCHANT_API_DOCUMENT_FILE } from './merchant-api.file';

/** This spec sits at libs/gateway/api/src/openapi; the description and redocly.yaml are at the repository root. */
const ROOT = join(__dirname, '..', '..', '..', '..', '..');

describe('redocly lint openapi.json', () => {
  it('finds no errors (rule choices in redocly.yaml)', () => {
    const cli = require.resolve('@redocly/cli/bin/cli.js');
    const run = spawnSync(process.execPath, [cli, 'lint', MERCHANT_API_DOCUMENT_FILE, '--format=stylish'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 120_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect({ exitCode: run.status, errors: output.split('\n').filter((line) => /\berror\b/.test(line)) }).toEqual({ exitCode: 0, errors: [] });
  });
});
