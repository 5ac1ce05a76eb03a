import { summarizeSeries, soakVerdict, type SeriesPoint } from './soak-analysis';
import { renderSoakMarkdown, type SoakRunSummary } from './soak-report';

const points = (values: number[]): SeriesPoint[] => values.map((value, minute) => ({ minute, value }));

function run(overrides: Partial<SoakRunSummary> = {}): SoakRunSummary {
  const summaries = [
    summarizeSeries({ name: 'rss gateway', kind: 'rss', unit: 'MB', points: points([180, 200, 201, 200, 202, 201]) }, 5),
    summarizeSeries({ name: 'rss kafka', kind: 'rss', unit: 'MB', points: points([250, 260, 270, 280, 290, 300]) }, 5),
    summarizeSeries({ name: 'pg backends payments', kind: 'connections', unit: 'connections', points: points([4, 10, 10, 10, 10, 10]) }, 5),
    summarizeSeries({ name: 'lag ledger.payment-events', kind: 'lag', unit: 'messages', points: points([0, 100, 300, 600, 900, 1200]) }, 5),
  ];
  return {
    startedAt: new Date('2026-11-26T15:00:00Z'),
    finishedAt: new Date('2026-11-26T15:07:30Z'),
    commit: 'abc1234',
    command: 'npm run soak -- --minutes 5',
    quick: false,
    machine: '2 × Xeon, load average 1.50 at start',
    saturationPerSecond: 180,
    ratePerSecond: 90,
    loadMinutes: 5,
    sampleEverySeconds: 5,
    minutes: [{ minute: 0, seconds: 60, completed: 5400, errors: 0, achievedPerSecond: 90, p50Ms: 12.5, p99Ms: 80 }],
    summaries,
    workload: 'W5 requests by operation: status 2160',
    verdict: soakVerdict({ quick: false, summaries, errors: 0, moneyProblems: [], samplingFailures: [] }),
    charts: ['soak-x-rss.svg', 'soak-x-lag.svg'],
    ...overrides,
  };
}

describe('the soak markdown summary', () => {
  it('states the verdict, the load and why it failed', () => {
    const markdown = renderSoakMarkdown(run());
    expect(markdown).toContain('## Soak 2026-11-26 15:00 UTC, commit abc1234: FAILED');
    expect(markdown).toContain("W5 open loop at 90.0 req/s, half of W5's closed-loop saturation of 180 req/s, for 5.00 min, sampled every 5 s");
    expect(markdown).toContain('- lag ledger.payment-events grows +280.0 messages/min after the warm-up (threshold 10)');
  });

  it('has one table per kind of series with start, end, min, max and slope', () => {
    const markdown = renderSoakMarkdown(run());
    expect(markdown).toContain('| series | start MB | end | min | max | slope MB/min | slope, % of mean per hour | verdict |');
    expect(markdown).toMatch(/\| rss gateway \| 180 \| 201 \| 180 \| 202 \| \+0\.\d{3} \| \+[\d.]+ % \| flat \|/);
    expect(markdown).toContain('| rss kafka | 250 | 300 | 250 | 300 | +10.0 | +214.3 % | shown, not judged |');
    expect(markdown).toContain('| pg backends payments | 4.00 | 10.0 | 4.00 | 10.0 | +0.000 | +0.000 % | flat |');
    expect(markdown).toMatch(/\| lag ledger\.payment-events \| 0 \| 1,200 \| 0 \| 1,200 \| \+280\.0 \| .* \| \*\*grows\*\* \(≥ 10\/min\) \|/);
    expect(markdown).toContain('| 1 | 90.0 | 5400 | 0 | 12.5 | 80.0 |');
  });

  it('shows the chart of each kind', () => {
    expect(renderSoakMarkdown(run())).toContain('![soak-x-rss.svg](soak-x-rss.svg)\n![soak-x-lag.svg](soak-x-lag.svg)');
  });

  it("labels a quick run's slopes as not judged", () => {
    const quick = run({ quick: true, loadMinutes: 0.75, saturationPerSecond: null, command: 'npm run soak -- --quick' });
    quick.verdict = soakVerdict({ quick: true, summaries: quick.summaries, errors: 0, moneyProblems: [], samplingFailures: [] });
    const markdown = renderSoakMarkdown(quick);
    expect(markdown).toContain(': PASSED');
    expect(markdown).toContain('**Quick run**: 45.0 s of load is mostly warm-up, so these slopes say little and are not judged');
    expect(markdown).toContain('90.0 req/s (given)');
    expect(markdown).not.toContain('flat |');
    expect(markdown).toContain('| not judged |');
  });
});
