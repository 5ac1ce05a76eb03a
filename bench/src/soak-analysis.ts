/**
 * The soak run's arithmetic (issue 23): the series it samples, their slopes after the warm-up,
 * the verdict, and the funding W5 needs. Pure, so that the rules the run is judged by are unit-tested.
 */
import { W5_MIX, type W5Operation } from './mix';
import { PAYOUT_HOLD_RUB, WITHDRAWAL_DEBIT_USDT } from './workloads';

/** What a series measures; each kind has its own flatness threshold (docs/operations/soak.md says why). */
export type SeriesKind = 'rss' | 'connections' | 'lag';

export interface SeriesPoint {
  /** Minutes since the load started. */
  minute: number;
  value: number;
}

export interface Series {
  /** e.g. `rss gateway`, `sockets payments`, `pg backends ledger`, `lag ledger.payment-events`. */
  name: string;
  kind: SeriesKind;
  /** The unit the values (and the slope, per minute) are in. */
  unit: 'MB' | 'connections' | 'messages';
  points: SeriesPoint[];
}

/**
 * The largest growth per minute after the warm-up that still counts as flat, per kind:
 * - RSS: 1 MB/min, i.e. 60 MB an hour, about a third of a service's whole footprint (150–250 MB):
 *   a leak that size would take a replica to its container limit within a day, while the noise
 *   of a garbage-collected heap or the JVM's sawtooth averages out over a least-squares fit of
 *   hundreds of samples;
 * - connections (a process's sockets, PostgreSQL's backends per database): 0.5 per minute; pools
 *   are bounded, so a steady run's count is constant, and a leak of one socket per 10,000
 *   requests at half saturation already grows faster than this;
 * - consumer lag: 10 messages per minute; a consumer that cannot keep up falls behind by the
 *   difference of rates, thousands of messages a minute, while a healthy one's lag hovers around
 *   the few messages in flight.
 * Only growth fails: a series that shrinks (a heap given back, a backlog drained) is fine.
 */
export const FLAT_THRESHOLD_PER_MINUTE: Record<SeriesKind, number> = { rss: 1, connections: 0.5, lag: 10 };

/**
 * Series shown with their slope but not judged: the broker's and the database server's memory.
 * Both are caches bounded by their own configuration that grow with the data a run writes
 * (Kafka: a JVM heap that expands from -Xms toward -Xmx, and the memory-mapped index of every
 * new log segment; PostgreSQL: shared_buffers filling with the growing tables), which the
 * platform's code cannot leak into and a 30-minute run does not fill. What is judged is ours:
 * the services' memory, every connection count and every consumer lag.
 */
export const UNJUDGED_SERIES: ReadonlySet<string> = new Set(['rss kafka', 'rss postgres']);

/** The share of the load's duration cut off as warm-up (JIT, caches, pools and JVM heap filling up). */
export const WARM_UP_SHARE = 0.2;

/** The points from the end of the warm-up on: the steady part the slope is fitted to. */
export function steadyPart(points: readonly SeriesPoint[], loadMinutes: number, warmUpShare = WARM_UP_SHARE): SeriesPoint[] {
  const cut = loadMinutes * warmUpShare;
  return points.filter((point) => point.minute >= cut);
}

/**
 * The least-squares slope of value over minutes, in units per minute; 0 for fewer than two
 * distinct times. Hand-written: it is the textbook closed form (covariance over variance), and
 * no statistics package is in the workspace; one would be a dependency for five lines.
 */
export function leastSquaresSlope(points: readonly SeriesPoint[]): number {
  if (points.length < 2) return 0;
  const meanMinute = points.reduce((sum, point) => sum + point.minute, 0) / points.length;
  const meanValue = points.reduce((sum, point) => sum + point.value, 0) / points.length;
  let covariance = 0;
  let variance = 0;
  for (const point of points) {
    covariance += (point.minute - meanMinute) * (point.value - meanValue);
    variance += (point.minute - meanMinute) ** 2;
  }
  return variance === 0 ? 0 : covariance / variance;
}

export interface SeriesSummary {
  name: string;
  kind: SeriesKind;
  unit: Series['unit'];
  /** All samples, warm-up included. */
  samples: number;
  /** Samples in the steady part, which the slope is fitted to. */
  steadySamples: number;
  start: number;
  end: number;
  min: number;
  max: number;
  /** Mean of the steady part. */
  mean: number;
  slopePerMinute: number;
  /** The slope over an hour as a share of the steady mean, in percent; null when the mean is 0. */
  percentPerHour: number | null;
  thresholdPerMinute: number;
  flat: boolean;
  /** False for UNJUDGED_SERIES: reported, never failing the run. */
  judged: boolean;
}

export function summarizeSeries(series: Series, loadMinutes: number): SeriesSummary {
  const values = series.points.map((point) => point.value);
  const steady = steadyPart(series.points, loadMinutes);
  const slopePerMinute = leastSquaresSlope(steady);
  const mean = steady.length > 0 ? steady.reduce((sum, point) => sum + point.value, 0) / steady.length : 0;
  const thresholdPerMinute = FLAT_THRESHOLD_PER_MINUTE[series.kind];
  return {
    name: series.name,
    kind: series.kind,
    unit: series.unit,
    samples: series.points.length,
    steadySamples: steady.length,
    start: values[0] ?? 0,
    end: values[values.length - 1] ?? 0,
    min: values.length > 0 ? Math.min(...values) : 0,
    max: values.length > 0 ? Math.max(...values) : 0,
    mean,
    slopePerMinute,
    percentPerHour: mean === 0 ? null : (slopePerMinute * 60 * 100) / mean,
    thresholdPerMinute,
    flat: slopePerMinute < thresholdPerMinute,
    judged: !UNJUDGED_SERIES.has(series.name),
  };
}

export interface SoakVerdict {
  passed: boolean;
  /** Why it failed, one line each; empty when it passed. */
  reasons: string[];
  /** Whether the slopes were judged: a quick run's are printed but too short to mean anything. */
  slopesJudged: boolean;
}

/**
 * A full run passes when every series is flat and nothing else went wrong; a quick run (CI)
 * judges only the errors, the money checks and the sampling, since a 45-second slope is mostly
 * warm-up and noise.
 */
export function soakVerdict(input: {
  quick: boolean;
  summaries: readonly SeriesSummary[];
  errors: number;
  moneyProblems: readonly string[];
  samplingFailures: readonly string[];
}): SoakVerdict {
  const reasons: string[] = [];
  if (input.errors > 0) reasons.push(`${input.errors} requests got an answer the workload did not expect (or none)`);
  reasons.push(...input.moneyProblems.map((problem) => `money check: ${problem}`));
  reasons.push(...input.samplingFailures.map((failure) => `sampling: ${failure}`));
  if (!input.quick) {
    for (const summary of input.summaries.filter((one) => one.judged)) {
      if (summary.steadySamples < 2) reasons.push(`${summary.name}: fewer than two samples after the warm-up, no slope`);
      else if (!summary.flat)
        reasons.push(
          `${summary.name} grows ${formatSlope(summary.slopePerMinute)} ${summary.unit}/min after the warm-up (threshold ${summary.thresholdPerMinute})`,
        );
    }
  }
  return { passed: reasons.length === 0, reasons, slopesJudged: !input.quick };
}

export function formatSlope(value: number): string {
  const digits = Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  return `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
}

/** The load's figures for one minute of it (the last one may be shorter). */
export interface MinuteFigures {
  minute: number;
  seconds: number;
  completed: number;
  errors: number;
  achievedPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** What one sample holds, by series name within each kind (a subset of the sampler's SoakSample). */
export interface SampleValues {
  atMs: number;
  rssMb: Record<string, number>;
  sockets: Record<string, number>;
  pgBackends: Record<string, number>;
  lag: Record<string, number>;
}

/**
 * The samples as series, timed in minutes from the load's start. A database with no backend or
 * a group gone from the broker's list in one sample is a 0 there, not a missing point (a gap
 * would bend the fit toward the samples that happen to have it).
 */
export function seriesOf(samples: readonly SampleValues[], loadStartedAtMs: number): Series[] {
  const families: Array<{ field: keyof Omit<SampleValues, 'atMs'>; prefix: string; kind: SeriesKind; unit: Series['unit'] }> = [
    { field: 'rssMb', prefix: 'rss', kind: 'rss', unit: 'MB' },
    { field: 'sockets', prefix: 'sockets', kind: 'connections', unit: 'connections' },
    { field: 'pgBackends', prefix: 'pg backends', kind: 'connections', unit: 'connections' },
    { field: 'lag', prefix: 'lag', kind: 'lag', unit: 'messages' },
  ];
  return families.flatMap(({ field, prefix, kind, unit }) => {
    const names = [...new Set(samples.flatMap((sample) => Object.keys(sample[field])))];
    return names.map((name) => ({
      name: `${prefix} ${name}`,
      kind,
      unit,
      points: samples.map((sample) => ({ minute: (sample.atMs - loadStartedAtMs) / 60_000, value: sample[field][name] ?? 0 })),
    }));
  });
}

/** W5's share of each operation, as a fraction of its requests. */
export const W5_SHARE = Object.fromEntries(W5_MIX.map((share) => [share.operation, share.percent / 100])) as Record<W5Operation, number>;

/**
 * What each of `merchants` needs for W5 at `ratePerSecond` for `seconds`, with a third to spare:
 * RUB for its payouts' holds and USDT for its withdrawals (amount and network fee). A merchant
 * that runs dry gets INSUFFICIENT_FUNDS, which the workload counts as an error.
 */
export function w5FundingPerMerchant(ratePerSecond: number, seconds: number, merchants: number): { payoutRub: number; usdt: number } {
  const perMerchant = (operation: W5Operation) => (W5_SHARE[operation] * ratePerSecond * seconds * 4) / 3 / merchants;
  return { payoutRub: Math.ceil(perMerchant('payout') * PAYOUT_HOLD_RUB), usdt: Math.ceil(perMerchant('withdrawal') * WITHDRAWAL_DEBIT_USDT) };
}
