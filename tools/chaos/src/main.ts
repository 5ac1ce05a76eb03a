/**
 * `npm run chaos [-- --quick]` (docs/operations/chaos.md). tools/chaos/run.mjs starts the fault
 * proxies, then the private infrastructure (the broker advertising the Kafka proxy on a listener
 * of its own), and calls `main` with both; this file picks the mode's settings and faults, starts
 * the callback sink and hands them to the run (run-chaos.ts).
 */
import { join } from 'node:path';
import { ConfigError, parseCommandLine } from '@mp/shared-util-config';
import { CATALOG_SERVICE_NAMES, workspaceRoot, type InstanceName } from '@mp/shared-testing';
import { CallbackSink, callbackSinkFaults } from './callback-sink';
import { standardFaults, type ChaosFault, type ChaosInfra } from './faults';
import { proxyFaults, type ProxiedDependencies } from './proxy-faults';
import { runChaos, type ChaosOptions } from './run-chaos';

const REPLICAS: InstanceName[] = ['payments-2', 'ledger-2'];

export function chaosOptions(argv: string[]): ChaosOptions {
  const { values } = parseCommandLine({
    args: argv,
    options: { quick: { type: 'boolean', default: false }, rate: { type: 'string' }, merchants: { type: 'string' } },
  });
  const quick = values.quick;
  const positive = (name: 'rate' | 'merchants', fallback: number) => {
    const given = values[name];
    if (given === undefined) return fallback;
    const number = Number(given);
    if (!Number.isInteger(number) || number <= 0 || number > 200)
      throw new ConfigError([`--${name} must be a whole number from 1 to 200, got ${JSON.stringify(given)}`]);
    return number;
  };
  return {
    mode: quick ? 'quick' : 'full',
    rate: positive('rate', quick ? 15 : 20),
    merchants: positive('merchants', quick ? 2 : 4),
    gapMs: quick ? 1_500 : 8_000,
    stableMs: quick ? 2_000 : 5_000,
    drainMs: quick ? 2_000 : 10_000,
    replicas: REPLICAS,
    // Quick runs (CI) leave the repository alone: their report goes next to the outcomes in .local/.
    reportDirectory: join(workspaceRoot, quick ? '.local/chaos' : 'reports'),
    // Bounds, not targets: a quick run takes about 100 s on 2 idle cores, but CI machines are shared.
    timeLimitMs: quick ? 240_000 : 20 * 60_000,
  };
}

/**
 * Every fault of a run, in order: crashes and restarts, then the network faults, then the
 * merchant's endpoint failing. A quick run (CI) takes only those over in seconds: the proxy's
 * PostgreSQL and Kafka drops, the sink failing (500) then gone (410) and turned back on.
 */
export function chaosFaults(mode: ChaosOptions['mode'], instances: readonly InstanceName[], net: ProxiedDependencies, sink: CallbackSink): ChaosFault[] {
  const sinkFaults = callbackSinkFaults(sink, mode === 'quick' ? { holdMs: 3_000, settleMs: 1_000 } : {});
  return [
    ...standardFaults(mode, instances),
    ...proxyFaults(net, mode),
    ...(mode === 'quick' ? sinkFaults.filter((fault) => fault.kind !== 'callback-sink-slow') : sinkFaults),
  ];
}

/**
 * The run, with options from chaosOptions (read before any infrastructure starts, so a bad flag
 * costs nothing) and the proxies started before the infrastructure (run.mjs).
 */
export async function main(options: ChaosOptions, infra: ChaosInfra, net: ProxiedDependencies, abort: AbortSignal): Promise<number> {
  const say = (line: string) => console.log(`[chaos] ${line}`);
  const instances: InstanceName[] = [...CATALOG_SERVICE_NAMES, ...options.replicas];
  const sink = await CallbackSink.start();
  try {
    const faults = chaosFaults(options.mode, instances, net, sink);
    say(`${options.mode} run: ${faults.length} faults (${faults.map((fault) => fault.name).join(', ')})`);
    return await runChaos(options, infra, faults, sink, abort, say);
  } finally {
    await sink.stop();
  }
}
