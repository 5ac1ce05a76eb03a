/**
 * `npm run chaos [-- --quick]` (docs/operations/chaos.md). tools/chaos/run.mjs starts the
 * private infrastructure and calls `main` with it; this file picks the mode's settings and
 * faults and hands them to the run (run-chaos.ts).
 */
import { join } from 'node:path';
import { ConfigError, parseCommandLine } from '@mp/shared-util-config';
import { CATALOG_SERVICE_NAMES, workspaceRoot, type InstanceName } from '@mp/shared-testing';
import { standardFaults, type ChaosInfra } from './faults';
import { runChaos, type ChaosOptions } from './run-chaos';

const REPLICAS: InstanceName[] = ['payments-2', 'ledger-2'];

export function chaosOptions(argv: string[]): ChaosOptions {
  const { values } = parseCommandLine({ args: argv, options: { quick: { type: 'boolean', default: false }, rate: { type: 'string' }, merchants: { type: 'string' } } });
  const quick = values.quick;
  const positive = (name: 'rate' | 'merchants', fallback: number) => {
    const given = values[name];
    if (given === undefined) return fallback;
    const number = Number(given);
    if (!Number.isInteger(number) || number <= 0 || number > 200) throw new ConfigError([`--${name} must be a whole number from 1 to 200, got ${JSON.stringify(given)}`]);
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

/** The run, with options from chaosOptions (read before any infrastructure starts, so a bad flag costs nothing). */
export async function main(options: ChaosOptions, infra: ChaosInfra, abort: AbortSignal): Promise<number> {
  const say = (line: string) => console.log(`[chaos] ${line}`);
  const instances: InstanceName[] = [...CATALOG_SERVICE_NAMES, ...options.replicas];
  const faults = standardFaults(options.mode, instances);
  say(`${options.mode} run: ${faults.length} faults (${faults.map((fault) => fault.name).join(', ')})`);
  return runChaos(options, infra, faults, abort, say);
}
