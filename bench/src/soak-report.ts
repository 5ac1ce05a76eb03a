import { formatNumber } from './report';
import { formatSlope, WARM_UP_SHARE, type MinuteFigures, type SeriesKind, type SeriesSummary, type SoakVerdict } from './soak-analysis';

/** What the markdown summary of a soak run shows; the JSON report holds this and every sample. */
export interface SoakRunSummary {
  startedAt: Date;
  finishedAt: Date;
  commit: string;
  command: string;
  quick: boolean;
  /** e.g. "2 × Intel Xeon, load average 1.9 2.1 2.0 at start". */
  machine: string;
  /** W5's closed-loop saturation when it was measured (null when --rate was given). */
  saturationPerSecond: number | null;
  ratePerSecond: number;
  loadMinutes: number;
  sampleEverySeconds: number;
  minutes: readonly MinuteFigures[];
  summaries: readonly SeriesSummary[];
  /** The workload's own description (requests per operation, pools that ran dry). */
  workload: string;
  verdict: SoakVerdict;
  /** The SVG chart of each kind of series, by file name next to the markdown. */
  charts: readonly string[];
}

const KIND_TITLES: Record<SeriesKind, string> = {
  rss: 'Memory (RSS of each service process and Kafka; PostgreSQL: the postmaster and its backends, proportional set size)',
  connections: "Open connections (each service process's sockets; PostgreSQL backends per database)",
  lag: 'Consumer lag per consumer group (log end minus committed offset, all partitions)',
};

export function renderSoakMarkdown(run: SoakRunSummary): string {
  const wall = ((run.finishedAt.getTime() - run.startedAt.getTime()) / 60_000).toFixed(1);
  const load =
    run.saturationPerSecond === null
      ? `${formatNumber(run.ratePerSecond)} req/s (given)`
      : `${formatNumber(run.ratePerSecond)} req/s, half of W5's closed-loop saturation of ${formatNumber(run.saturationPerSecond)} req/s`;
  const slopeNote = run.verdict.slopesJudged
    ? `Slopes are least-squares fits after the first ${WARM_UP_SHARE * 100} % of the load (the warm-up), per minute and as a share of the steady mean per hour; a series passes when it grows less than its threshold per minute.`
    : `**Quick run**: ${formatNumber(run.loadMinutes * 60)} s of load is mostly warm-up, so these slopes say little and are not judged; only errors, the money checks and the sampling are.`;
  const lines = [
    `## Soak ${run.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${run.commit}: ${run.verdict.passed ? 'PASSED' : 'FAILED'}`,
    '',
    `\`${run.command}\` (${wall} min wall). W5 open loop at ${load}, for ${formatNumber(run.loadMinutes)} min, sampled every ${run.sampleEverySeconds} s. ${run.machine}.`,
    '',
    slopeNote,
    '',
    ...(run.verdict.passed ? [] : ['Failed because:', '', ...run.verdict.reasons.map((reason) => `- ${reason}`), '']),
    '| minute | req/s | completed | errors | p50 ms | p99 ms |',
    '|---:|---:|---:|---:|---:|---:|',
    ...run.minutes.map(
      (figures) =>
        `| ${figures.minute + 1} | ${formatNumber(figures.achievedPerSecond)} | ${figures.completed} | ${figures.errors} | ${formatNumber(figures.p50Ms)} | ${formatNumber(figures.p99Ms)} |`,
    ),
    '',
  ];
  for (const kind of Object.keys(KIND_TITLES) as SeriesKind[]) {
    const ofKind = run.summaries.filter((summary) => summary.kind === kind);
    if (ofKind.length === 0) continue;
    lines.push(`${KIND_TITLES[kind]}:`, '', seriesTable(ofKind, run.verdict.slopesJudged), '');
  }
  lines.push(`${run.workload}.`, '');
  if (run.charts.length > 0) lines.push(...run.charts.map((file) => `![${file}](${file})`), '');
  return lines.join('\n');
}

function seriesTable(summaries: readonly SeriesSummary[], judged: boolean): string {
  const unit = summaries[0].unit;
  const rows = summaries.map((summary) => {
    const perHour = summary.percentPerHour === null ? '—' : `${formatSlope(summary.percentPerHour)} %`;
    const verdict = !judged ? 'not judged' : !summary.judged ? 'shown, not judged' : summary.flat ? 'flat' : `**grows** (≥ ${summary.thresholdPerMinute}/min)`;
    return `| ${summary.name} | ${formatNumber(summary.start)} | ${formatNumber(summary.end)} | ${formatNumber(summary.min)} | ${formatNumber(summary.max)} | ${formatSlope(summary.slopePerMinute)} | ${perHour} | ${verdict} |`;
  });
  return [
    `| series | start ${unit} | end | min | max | slope ${unit}/min | slope, % of mean per hour | verdict |`,
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}
