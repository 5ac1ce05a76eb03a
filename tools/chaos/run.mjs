#!/usr/bin/env node
/**
 * `npm run chaos [-- --quick]`: builds the workspace (Nx, cached), starts the TCP fault proxies
 * (tools/chaos/src/proxy-faults.ts), a private Kafka broker (advertising the Kafka proxy on a
 * second listener) and PostgreSQL server on free loopback ports (deploy/local/infra.mjs, test mode: the run
 * restarts them, so never the shared ones), runs the chaos run (tools/chaos/src/main.ts, from
 * dist/) against them, and stops everything again, whatever happened: a failure, Ctrl-C or
 * SIGTERM. See docs/operations/chaos.md.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build, builtEntry, root } from '../build-workspace.mjs';
import { startInfra } from '../../deploy/local/infra.mjs';

const say = (line) => console.log(`[chaos] ${line}`);
const startedAt = Date.now();
const abort = new AbortController();
let infra = null;
let net = null;
const onSignal = (signal) => {
  if (abort.signal.aborted) return say(`${signal} again: still stopping, please wait`);
  say(`${signal}: stopping the load and the faults, then the system and the infrastructure`);
  abort.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

let code = 1;
try {
  const buildLog = join(root, '.local/build.log');
  say(`building (Nx, cached; log in ${buildLog})`);
  await build({ logFile: buildLog });
  const load = createRequire(import.meta.url);
  const { chaosOptions, main } = load(builtEntry('tools/chaos/src/main.ts'));
  const { ProxiedDependencies } = load(builtEntry('tools/chaos/src/proxy-faults.ts'));
  let options;
  try {
    options = chaosOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`[chaos] ${error.message}\nusage: npm run chaos [-- --quick] [--rate N] [--merchants N]`);
    process.exit(2);
  }
  // The proxies first: the broker's configuration names the Kafka proxy's port, which its second listener advertises.
  net = await ProxiedDependencies.start();
  say('starting a private Kafka broker and PostgreSQL server');
  infra = await startInfra({ mode: 'test', kafkaProxiedListener: net.kafkaProxiedListener });
  // The test harness (SystemUnderTest) reads these; the run's own servers, never the shared ones.
  process.env.KAFKA_BROKERS = infra.kafka.brokers;
  process.env.TEST_PG_ADMIN_URL = infra.postgres.adminUrl;
  const chaosInfra = {
    kafka: {
      brokers: infra.kafka.brokers,
      port: infra.kafka.port,
      proxiedListener: infra.kafka.proxiedListener,
      pause: infra.kafka.pause,
      resume: infra.kafka.resume,
    },
    postgres: {
      adminUrl: infra.postgres.adminUrl,
      host: infra.postgres.host,
      port: infra.postgres.port,
      pause: infra.postgres.pause,
      resume: infra.postgres.resume,
    },
  };
  code = abort.signal.aborted ? 130 : await main(options, chaosInfra, net, abort.signal);
} catch (error) {
  console.error(`[chaos] ${error instanceof Error ? (error.stack ?? error.message) : error}`);
  code = 1;
} finally {
  // The faults' dispose closes the proxies too; this covers a run that never got that far.
  if (net) await net.close().catch((error) => console.error(`[chaos] closing the fault proxies: ${error.message}`));
  if (infra) await infra.stop().catch((error) => console.error(`[chaos] stopping the infrastructure: ${error.message}`));
  say(`${code === 0 ? 'passed' : code === 130 ? 'interrupted' : 'FAILED'} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
}
process.exit(code);
