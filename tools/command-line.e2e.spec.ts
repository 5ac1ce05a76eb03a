/**
 * Goal: every command of the workspace parses its flags with Node's parseArgs, strictly: an
 * unknown flag is refused with a message that names it (and a non-zero exit), before the
 * command does anything. Known flags keep working (`--as-agent` anywhere, a negative amount as
 * a positional, `--cpu-prof` with or without a directory are covered by their commands' use).
 * Method: each command is run as an operator runs it, with a flag it does not know, and with
 * no infrastructure in the environment, so nothing can start by mistake.
 * The TypeScript commands run from dist/, which is why this is an end-to-end file (the e2e tier builds it).
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');
const built = (entry: string) => join(root, 'dist', entry.replace(/\.ts$/, '.js'));
/** No Kafka, PostgreSQL or tokens: a command that ignored the bad flag fails on something else. */
const bareEnvironment = { PATH: process.env['PATH'] ?? '', BACKOFFICE_TOKEN: 'not-a-token', MP_BASE_URL: 'http://127.0.0.1:9' };

const commands: Array<[string, string[]]> = [
  ['npm start (deploy/local/start.mjs)', ['deploy/local/start.mjs', '--mode', 'test', '--bogus']],
  ['infra up (deploy/local/infra.mjs)', ['deploy/local/infra.mjs', 'up', '--mode', 'test', '--bogus']],
  ['infra down (deploy/local/infra.mjs)', ['deploy/local/infra.mjs', 'down', '--bogus']],
  ['backoffice (tools/backoffice.mjs)', ['tools/backoffice.mjs', 'balances', 'm_1', '--bogus']],
  ['measure-startup (tools/measure-startup.mjs)', ['tools/measure-startup.mjs', '--bogus', '--', 'node', '-e', '0']],
  ['merchant:create', [built('apps/gateway/src/create-merchant.ts'), '--name', 'Shop', '--bogus']],
  ['operator:create', [built('apps/gateway/src/create-operator.ts'), '--name', 'Alice', '--bogus']],
  ['dlq', [built('apps/ops/src/dead-letters.ts'), 'list', 'payments.commands', '--bogus']],
  ['ledger:audit', [built('apps/ledger/src/audit.ts'), '--bogus']],
  ['audit', [built('apps/ops/src/audit.ts'), '--bogus']],
  ['bench', [built('bench/src/main.ts'), '--quick', '--bogus']],
];

describe('command-line flags (node:util parseArgs)', () => {
  it.each(commands)('%s refuses an unknown flag by name', (_name, args) => {
    const result = spawnSync(process.execPath, args, { cwd: root, env: bareEnvironment, encoding: 'utf8', timeout: 60_000 });
    expect({ refused: result.status !== 0 && result.status !== null, message: /Unknown option '--bogus'/.test(result.stderr) }).toEqual({
      refused: true,
      message: true,
    });
  });
});
