import { build } from 'hdr-histogram-js';
import { Client } from 'pg';
import { runClosedLoop, runOpenLoop, type LoopSample, type SendRequest } from './open-loop';
import { cpuMsBetween, snapshotGroups, type GroupSnapshot, type ProcessGroup } from './proc-stats';
import type { Contender, LatencySummary, StepResult, StepShape } from './report';
import { readFileSync } from 'node:fs';

/** What a step measures besides latency: the contender's processes and its databases. */
export interface MeasuredContender {
  name: Contender;
  groups: ProcessGroup[];
  /** Whether the contender writes to PostgreSQL (B1 does not). */
  usesPostgres: boolean;
  /** An admin connection string of the PostgreSQL server, for its write counters. */
  adminUrl: string;
}

export interface StepPlan extends StepShape {
  contender: MeasuredContender;
  /** Produces the load, calling record once per request; resolves when all are answered. */
  drive: (record: (sample: LoopSample) => void) => Promise<{ elapsedMs: number; skipped: number }>;
}

/** A closed loop of `connections` clients over `send`. */
export function closedLoop(connections: number, durationMs: number, send: SendRequest): StepPlan['drive'] {
  return (record) => runClosedLoop({ connections, durationMs, send, record });
}

/** An open loop at `ratePerSecond` over `send`. */
export function openLoop(ratePerSecond: number, durationMs: number, send: SendRequest): StepPlan['drive'] {
  return (record) => runOpenLoop({ ratePerSecond, durationMs, send, record });
}

/** Microsecond histogram from 1 µs to 2 min, 3 significant digits. */
export function newHistogram() {
  return build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
}

/** Runs `work` on a connection of its own to the benchmark's PostgreSQL server, closed after. */
async function withAdminClient<T>(adminUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL's write counters, cluster-wide: the next transaction id (each writing transaction
 * takes one; reads take none) and the WAL position. Exact at any instant, unlike
 * pg_stat_database, whose backends report up to seconds late. On the benchmark's private
 * cluster only the contenders write. `walLsn` is the same position as `walBytes`, for
 * `walRecordsBetween`.
 */
export async function writeCounters(adminUrl: string): Promise<{ transactions: number; walBytes: number; walLsn: string }> {
  return withAdminClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ next_xid: string; wal: string; lsn: string }>(
      `SELECT txid_snapshot_xmax(txid_current_snapshot())::text AS next_xid, pg_wal_lsn_diff(lsn, '0/0')::text AS wal, lsn::text
         FROM pg_current_wal_lsn() AS lsn`,
    );
    return { transactions: Number(rows[0].next_xid), walBytes: Number(rows[0].wal), walLsn: rows[0].lsn };
  });
}

/** Durability as production would have it: the test cluster starts with fsync off, so turn it on before anything runs. */
export async function requireDurableCommits(adminUrl: string): Promise<void> {
  return withAdminClient(adminUrl, async (client) => {
    for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes']) await client.query(`ALTER SYSTEM SET ${setting} = on`);
    await client.query('SELECT pg_reload_conf()');
    await new Promise((resolve) => setTimeout(resolve, 500));
  });
}

export interface WalRecordKind {
  /** Resource manager and record type, as pg_walinspect names them: `Heap/INSERT`, `XLOG/FPI`. */
  kind: string;
  count: number;
  recordBytes: number;
  /** Full-page images carried by these records: a page's first change after a checkpoint. */
  fullPageImageBytes: number;
}

/**
 * The WAL between two positions by record type (pg_walinspect, shipped with PostgreSQL 15):
 * which kind of change the bytes were, and how much of them were full-page images. Whole
 * server, so on the benchmark's private cluster it is the system's WAL and nobody else's.
 */
export async function walRecordsBetween(adminUrl: string, fromLsn: string, toLsn: string): Promise<WalRecordKind[]> {
  return withAdminClient(adminUrl, async (client) => {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    const { rows } = await client.query<{ kind: string; count: string; record_size: string; fpi_size: string }>(
      `SELECT "resource_manager/record_type" AS kind, count::text, record_size::text, fpi_size::text
         FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) WHERE count > 0 ORDER BY combined_size DESC`,
      [fromLsn, toLsn],
    );
    return rows.map((row) => ({ kind: row.kind, count: Number(row.count), recordBytes: Number(row.record_size), fullPageImageBytes: Number(row.fpi_size) }));
  });
}

/** Busy ticks of the whole machine (all CPUs), from /proc/stat: shows how much others used during a step. */
export function machineBusyTicks(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return user + nice + system + irq + softirq + steal;
}

export interface StepExtras {
  machineCpuMs: number;
  insufficientFunds?: number;
}

/** Runs one closed- or open-loop step and measures it. */
export async function runStep(plan: StepPlan): Promise<StepResult & StepExtras> {
  const histogram = newHistogram();
  let completed = 0;
  let errors = 0;
  const statusCounts = new Map<number, number>();
  const record = (sample: LoopSample) => {
    histogram.recordValue(Math.min(sample.latencyMicros, 120_000_000));
    if (sample.outcome.status !== 0) completed += 1;
    if (!sample.outcome.ok) errors += 1;
    statusCounts.set(sample.outcome.status, (statusCounts.get(sample.outcome.status) ?? 0) + 1);
  };
  const groups = plan.contender.groups;
  const peakRss = new Map<string, number>();
  let peakRssWithoutPostgres = 0;
  const sampleRss = (snapshot: Map<string, GroupSnapshot>) => {
    let withoutPostgres = 0;
    for (const [name, group] of snapshot) {
      peakRss.set(name, Math.max(peakRss.get(name) ?? 0, group.rssBytes));
      if (name !== 'postgres') withoutPostgres += group.rssBytes;
    }
    peakRssWithoutPostgres = Math.max(peakRssWithoutPostgres, withoutPostgres);
  };
  const writesBefore = await writeCounters(plan.contender.adminUrl);
  const before = snapshotGroups(groups);
  sampleRss(before);
  const machineBefore = machineBusyTicks();
  const generatorBefore = process.cpuUsage();
  const sampler = setInterval(() => sampleRss(snapshotGroups(groups)), 1_000);
  const summary = await plan.drive(record);
  clearInterval(sampler);
  const generator = process.cpuUsage(generatorBefore);
  const after = snapshotGroups(groups);
  const machineAfter = machineBusyTicks();
  sampleRss(after);
  const writesAfter = await writeCounters(plan.contender.adminUrl);

  const perRequest = (value: number) => (completed > 0 ? value / completed : 0);
  const cpuMsPerRequest: Record<string, number> = {};
  for (const group of groups) cpuMsPerRequest[group.name] = perRequest(cpuMsBetween(before.get(group.name), after.get(group.name)));
  const toMs = (micros: number) => micros / 1000;
  const latency: LatencySummary = {
    p50: toMs(histogram.getValueAtPercentile(50)),
    p90: toMs(histogram.getValueAtPercentile(90)),
    p99: toMs(histogram.getValueAtPercentile(99)),
    p999: toMs(histogram.getValueAtPercentile(99.9)),
    max: toMs(histogram.maxValue),
  };
  const result: StepResult & StepExtras & { statuses: Record<string, number>; skipped: number } = {
    contender: plan.contender.name,
    workload: plan.workload,
    round: plan.round,
    mode: plan.mode,
    ...(plan.mode === 'closed'
      ? { connections: plan.connections ?? 32 }
      : { ratePerSecond: plan.ratePerSecond, ...(plan.loadShare === undefined ? {} : { loadShare: plan.loadShare }) }),
    durationMs: Math.round(summary.elapsedMs),
    completed,
    errors,
    skipped: summary.skipped,
    achievedPerSecond: completed / (summary.elapsedMs / 1000),
    latency,
    cpuMsPerRequest,
    cpuMsPerRequestTotal: Object.values(cpuMsPerRequest).reduce((sum, value) => sum + value, 0),
    generatorCpuMsPerRequest: perRequest((generator.user + generator.system) / 1000),
    writeTransactionsPerRequest: plan.contender.usesPostgres ? perRequest(writesAfter.transactions - writesBefore.transactions) : null,
    walBytesPerRequest: plan.contender.usesPostgres ? perRequest(writesAfter.walBytes - writesBefore.walBytes) : null,
    peakRssBytes: Object.fromEntries(peakRss),
    peakRssWithoutPostgresBytes: peakRssWithoutPostgres,
    machineCpuMs: cpuMsBetween({ ticks: machineBefore, rssBytes: 0 }, { ticks: machineAfter, rssBytes: 0 }),
    statuses: Object.fromEntries([...statusCounts].map(([status, count]) => [String(status), count])),
  };
  histogram.destroy();
  return result;
}

export function describeStep(step: StepResult & StepExtras): string {
  const load = step.mode === 'closed' ? `${step.connections} conn` : `${step.ratePerSecond?.toFixed(0)} req/s`;
  const cpu = Object.entries(step.cpuMsPerRequest)
    .map(([name, value]) => `${name} ${value.toFixed(2)}`)
    .join(', ');
  return (
    `${step.contender.padEnd(7)} ${step.workload.padEnd(34)} r${step.round} ${step.mode.padEnd(6)} ${load.padEnd(12)} ` +
    `${step.achievedPerSecond.toFixed(0).padStart(6)} req/s  p50 ${step.latency.p50.toFixed(1)} p99 ${step.latency.p99.toFixed(1)} ms  errors ${step.errors}  ` +
    `CPU-ms/req ${step.cpuMsPerRequestTotal.toFixed(2)} (${cpu}; generator ${step.generatorCpuMsPerRequest.toFixed(2)})  machine CPU ${(step.machineCpuMs / step.durationMs).toFixed(2)} cores`
  );
}
