/**
 * The ops image's projection rebuild (rebuild/rebuild-projection.command.ts;
 * docs/operations/projection-rebuild.md):
 *
 *   node dist/apps/ops/src/rebuild-projection.js <service> <projection> [--switch] [--json] [--batch-size N]
 *   node dist/apps/ops/src/rebuild-projection.js --list
 */
import { runRebuildProjection } from './rebuild/rebuild-projection.command';

runRebuildProjection(process.argv.slice(2), process.env, { out: (line) => console.log(line), err: (line) => console.error(line) }).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    // 3, not 1: a failure to run (PostgreSQL unreachable) is worth a retry, a report of differences is not.
    console.error(error);
    process.exitCode = 3;
  },
);
