#!/usr/bin/env node
/**
 * npm run dlq -- list|replay <topic> — the dead-letter tool (apps/ops/src/dead-letters.ts).
 * KAFKA_BROKERS (and KAFKA_NAMESPACE) pick the cluster; unset, it is the one `npm start` runs.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root, withLocalDefault } from './local-endpoints.mjs';

const env = withLocalDefault('KAFKA_BROKERS', (endpoints) => endpoints.kafka_brokers, 'dlq');
const result = spawnSync(process.execPath, [join(root, 'tools/run-built.mjs'), 'apps/ops/src/dead-letters.ts', ...process.argv.slice(2)], {
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
