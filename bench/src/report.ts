/**
 * The results of a run and their markdown table: workload × contender, with saturation from
 * the closed loop and latency from the open loop at half of each contender's own saturation.
 * Pure functions, unit-tested.
 */
import type { LoadPoint } from './latency-chart';

export type Contender = 'system' | 'B2' | 'B1' | 'pgbench';
export type LoopMode = 'closed' | 'open';

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** What a step is: one workload, one round, one kind of loop. */
export interface StepShape {
  workload: string;
  round: number;
  mode: LoopMode;
  /** Closed loop: connections; open loop: the scheduled rate. */
  connections?: number;
  ratePerSecond?: number;
  /** Open loop: the share of the contender's own saturation offered (the table's is ½; the chart adds others). */
  loadShare?: number;
  durationMs: number;
}

export interface StepResult extends StepShape {
  contender: Contender;
  completed: number;
  /** Answers the workload did not expect, connection errors and skipped sends. */
  errors: number;
  achievedPerSecond: number;
  /** Milliseconds. */
  latency: LatencySummary;
  /** CPU milliseconds per completed request, per process group of the contender. */
  cpuMsPerRequest: Record<string, number>;
  /** Sum over the contender's own processes (the generator excluded). */
  cpuMsPerRequestTotal: number;
  generatorCpuMsPerRequest: number;
  /** Writing PostgreSQL transactions (transaction ids taken) per request, cluster-wide; null without a database. */
  writeTransactionsPerRequest: number | null;
  walBytesPerRequest: number | null;
  /** Peak resident memory per process group during the step. */
  peakRssBytes: Record<string, number>;
  /**
   * The largest resident memory of the contender's processes but PostgreSQL's at one sampling
   * instant (once a second): for the system, the six services plus Kafka together.
   */
  peakRssWithoutPostgresBytes?: number;
}

export interface TableRow {
  workload: string;
  contender: Contender;
  saturation: number[];
  p50: number[];
  p99: number[];
  cpuMsPerRequest: number[];
  writeTransactionsPerRequest: number[];
  errors: number;
  /** An open-loop step achieved under 90 % of its schedule: the contender fell behind, and its latency includes the queue. */
  fellBehind: boolean;
}

/** Below this share of the scheduled rate an open-loop step counts as fallen behind. */
export const BEHIND_SCHEDULE_SHARE = 0.9;

/**
 * An open-loop step at half the saturation fell behind when it completed under 90 % of its
 * schedule, or when its median latency exceeded the closed loop's at full load: a queue built
 * up because the contender got less CPU than during its closed loop (the machine is shared).
 */
export function fellBehind(open: StepResult, closed: StepResult | undefined): boolean {
  if (open.achievedPerSecond < BEHIND_SCHEDULE_SHARE * (open.ratePerSecond ?? 0)) return true;
  return closed !== undefined && open.latency.p50 > closed.latency.p50;
}

/** The open-loop load of the table's latency columns: half of the contender's own saturation. */
export const TABLE_LOAD_SHARE = 0.5;

export const CONTENDER_ORDER: readonly Contender[] = ['system', 'B2', 'B1', 'pgbench'];

/** One row per (workload, contender) that has results, workloads in first-seen order. */
export function tableRows(steps: readonly StepResult[]): TableRow[] {
  const workloads = [...new Set(steps.map((step) => step.workload))];
  const rows: TableRow[] = [];
  for (const workload of workloads) {
    for (const contender of CONTENDER_ORDER) {
      const mine = steps.filter((step) => step.workload === workload && step.contender === contender);
      if (mine.length === 0) continue;
      const closed = mine.filter((step) => step.mode === 'closed');
      const open = mine.filter((step) => step.mode === 'open' && (step.loadShare ?? TABLE_LOAD_SHARE) === TABLE_LOAD_SHARE);
      rows.push({
        workload,
        contender,
        saturation: closed.map((step) => step.achievedPerSecond),
        p50: open.map((step) => step.latency.p50),
        p99: open.map((step) => step.latency.p99),
        cpuMsPerRequest: closed.map((step) => step.cpuMsPerRequestTotal),
        writeTransactionsPerRequest: closed.flatMap((step) => (step.writeTransactionsPerRequest === null ? [] : [step.writeTransactionsPerRequest])),
        errors: mine.reduce((sum, step) => sum + step.errors, 0),
        fellBehind: open.some((step) =>
          fellBehind(
            step,
            closed.find((candidate) => candidate.round === step.round),
          ),
        ),
      });
    }
  }
  return rows;
}

/**
 * Why a smoke run (CI's `npm run bench -- --quick`) failed as far as the steps tell: each step
 * with an answer its workload did not expect (a wrong status, no answer). Never a figure: a busy
 * machine makes any run slow, and a slow run is not a broken one.
 */
export function smokeProblems(steps: ReadonlyArray<StepResult & { statuses?: Record<string, number> }>): string[] {
  return steps
    .filter((step) => step.errors > 0)
    .map((step) => {
      const load = step.mode === 'closed' ? `${step.connections} connections` : `${Math.round(step.ratePerSecond ?? 0)} req/s`;
      return `${step.contender} ${step.workload} r${step.round} ${step.mode} at ${load}: ${step.errors} answers the workload did not expect (HTTP statuses ${JSON.stringify(step.statuses ?? {})})`;
    });
}

/** Significant figures that suit the magnitude: 1,234 · 123 · 12.3 · 1.23 · 0.123. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const magnitude = Math.abs(value);
  if (magnitude >= 1000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  if (magnitude === 0) return '0';
  return value.toFixed(3);
}

/** The values of the rounds: one number when there is one round (or all agree), else "min–max". */
export function formatRange(values: readonly number[]): string {
  if (values.length === 0) return '—';
  const low = formatNumber(Math.min(...values));
  const high = formatNumber(Math.max(...values));
  return low === high ? low : `${low}–${high}`;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The latency-versus-load chart's points of one contender: per load share, the medians over the rounds, by offered load. */
export function chartPoints(steps: readonly StepResult[], workload: string, contender: Contender): LoadPoint[] {
  const open = steps.filter((step) => step.workload === workload && step.contender === contender && step.mode === 'open' && step.ratePerSecond !== undefined);
  const shares = [...new Set(open.map((step) => step.loadShare ?? TABLE_LOAD_SHARE))];
  return shares
    .map((share) => {
      const atShare = open.filter((step) => (step.loadShare ?? TABLE_LOAD_SHARE) === share);
      return {
        offeredPerSecond: median(atShare.map((step) => step.ratePerSecond as number)),
        p50Ms: median(atShare.map((step) => step.latency.p50)),
        p99Ms: median(atShare.map((step) => step.latency.p99)),
      };
    })
    .sort((a, b) => a.offeredPerSecond - b.offeredPerSecond);
}

/** system ÷ yardstick of the medians, e.g. "0.12"; "—" when either side is missing. */
export function ratio(numerator: readonly number[], denominator: readonly number[]): string {
  if (numerator.length === 0 || denominator.length === 0) return '—';
  const bottom = median(denominator);
  if (bottom === 0) return '—';
  return formatNumber(median(numerator) / bottom);
}

export function markdownTable(steps: readonly StepResult[]): string {
  const rows = tableRows(steps);
  const lines = [
    '| workload | contender | saturation req/s (closed loop) | p50 ms at ½ saturation | p99 ms at ½ saturation | CPU-ms/req | PG write tx/req | errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.workload} | ${row.contender} | ${formatRange(row.saturation)} | ${formatRange(row.p50)} | ${formatRange(row.p99)}${row.fellBehind ? ' *' : ''} | ${formatRange(row.cpuMsPerRequest)} | ${formatRange(row.writeTransactionsPerRequest)} | ${row.errors} |`,
    ),
  ];
  if (rows.some((row) => row.fellBehind)) {
    lines.push(
      '',
      `\\* fell behind its schedule in an open-loop step (completed under ${BEHIND_SCHEDULE_SHARE * 100} % of it, or a median above the closed loop's at full load): it got less CPU than during its closed loop, and the latency includes the queue that built up.`,
    );
  }
  const ratioLines = [...new Set(rows.map((row) => row.workload))].flatMap((workload) => {
    const system = rows.find((row) => row.workload === workload && row.contender === 'system');
    const yardstick = rows.find((row) => row.workload === workload && row.contender === 'B2');
    if (!system || !yardstick) return [];
    return [
      `| ${workload} | ${ratio(system.saturation, yardstick.saturation)} | ${ratio(system.p99, yardstick.p99)} | ${ratio(system.cpuMsPerRequest, yardstick.cpuMsPerRequest)} |`,
    ];
  });
  if (ratioLines.length === 0) return lines.join('\n');
  return [
    ...lines,
    '',
    '| workload | system/B2 saturation | system/B2 p99 at ½ saturation | system/B2 CPU-ms/req |',
    '|---|---:|---:|---:|',
    ...ratioLines,
  ].join('\n');
}

/** Per-process CPU-ms per request of the closed-loop steps, for the system's breakdown. */
export function cpuBreakdownTable(steps: readonly StepResult[]): string {
  const closed = steps.filter((step) => step.mode === 'closed');
  const groups = [...new Set(closed.flatMap((step) => Object.keys(step.cpuMsPerRequest)))];
  const header = `| workload | contender | round | ${groups.join(' | ')} | generator | WAL KB/req | peak RSS MB (${groups.join(', ')}) |`;
  const lines = [header, `|---|---|---:|${groups.map(() => '---:|').join('')}---:|---:|---|`];
  for (const step of closed) {
    const cpu = groups.map((group) => (group in step.cpuMsPerRequest ? formatNumber(step.cpuMsPerRequest[group]) : '—'));
    const rss = groups.map((group) => (group in step.peakRssBytes ? String(Math.round(step.peakRssBytes[group] / 1_048_576)) : '—'));
    const wal = step.walBytesPerRequest === null ? '—' : formatNumber(step.walBytesPerRequest / 1024);
    lines.push(
      `| ${step.workload} | ${step.contender} | ${step.round} | ${cpu.join(' | ')} | ${formatNumber(step.generatorCpuMsPerRequest)} | ${wal} | ${rss.join(', ')} |`,
    );
  }
  return lines.join('\n');
}
