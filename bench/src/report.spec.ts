import { chartPoints, smokeProblems, formatNumber, formatRange, markdownTable, ratio, tableRows, type StepResult } from './report';

function step(overrides: Partial<StepResult>): StepResult {
  return {
    contender: 'system',
    workload: 'W1 create pay-in',
    round: 1,
    mode: 'closed',
    durationMs: 10_000,
    completed: 1000,
    errors: 0,
    achievedPerSecond: 100,
    latency: { p50: 200, p90: 300, p99: 400, p999: 500, max: 600 },
    cpuMsPerRequest: { gateway: 2, payments: 3 },
    cpuMsPerRequestTotal: 5,
    generatorCpuMsPerRequest: 0.2,
    writeTransactionsPerRequest: 3,
    walBytesPerRequest: 2048,
    peakRssBytes: { gateway: 200 * 1_048_576 },
    ...overrides,
  };
}

describe('number formatting', () => {
  it('keeps about three significant figures', () => {
    expect([12345.6, 123.4, 12.34, 1.234, 0.1234, 0].map(formatNumber)).toEqual(['12,346', '123', '12.3', '1.23', '0.123', '0']);
  });

  it('shows the rounds as a range, or one value when they agree', () => {
    expect(formatRange([112, 177])).toBe('112–177');
    expect(formatRange([177, 112, 150])).toBe('112–177');
    expect(formatRange([12.31, 12.34])).toBe('12.3');
    expect(formatRange([])).toBe('—');
  });

  it('divides the medians for ratios', () => {
    expect(ratio([112, 177], [1106, 1340])).toBe('0.118');
    expect(ratio([1], [])).toBe('—');
    expect(ratio([1], [0])).toBe('—');
  });
});

describe('the workload × contender table', () => {
  const steps: StepResult[] = [
    step({ round: 1, achievedPerSecond: 112, cpuMsPerRequestTotal: 13 }),
    step({ round: 1, mode: 'open', ratePerSecond: 56, latency: { p50: 12.2, p90: 20, p99: 29.4, p999: 40, max: 50 } }),
    step({ round: 1, contender: 'B2', achievedPerSecond: 1106, cpuMsPerRequestTotal: 1.6, writeTransactionsPerRequest: 1 }),
    step({ round: 1, contender: 'B2', mode: 'open', latency: { p50: 2.9, p90: 4, p99: 6.7, p999: 8, max: 9 } }),
    step({ round: 2, achievedPerSecond: 177, cpuMsPerRequestTotal: 13, errors: 2 }),
    step({ round: 2, mode: 'open', latency: { p50: 12.2, p90: 20, p99: 29.4, p999: 40, max: 50 } }),
    step({ round: 2, contender: 'B2', achievedPerSecond: 1340, cpuMsPerRequestTotal: 1.6, writeTransactionsPerRequest: 1 }),
    step({ round: 2, contender: 'B2', mode: 'open', latency: { p50: 2.9, p90: 4, p99: 6.7, p999: 8, max: 9 } }),
    step({ workload: 'W3 payout', achievedPerSecond: 80, writeTransactionsPerRequest: null, walBytesPerRequest: null }),
    step({ workload: 'W3 payout', mode: 'open', ratePerSecond: 40, achievedPerSecond: 30 }),
  ];

  it('has saturation from the closed loop and latency from the open loop, over both rounds', () => {
    const [system, yardstick, payout] = tableRows(steps);
    expect(system).toMatchObject({
      workload: 'W1 create pay-in',
      contender: 'system',
      saturation: [112, 177],
      p50: [12.2, 12.2],
      p99: [29.4, 29.4],
      cpuMsPerRequest: [13, 13],
      errors: 2,
    });
    expect(yardstick).toMatchObject({ contender: 'B2', saturation: [1106, 1340], p99: [6.7, 6.7], writeTransactionsPerRequest: [1, 1] });
    expect(payout).toMatchObject({
      workload: 'W3 payout',
      contender: 'system',
      saturation: [80],
      p50: [200],
      writeTransactionsPerRequest: [],
      fellBehind: true,
    });
    expect(system.fellBehind).toBe(false);
    // Its median at half the load above the closed loop's at full load: a queue built up.
    const slowed = tableRows([
      step({ latency: { p50: 5, p90: 6, p99: 7, p999: 8, max: 9 } }),
      step({ mode: 'open', ratePerSecond: 50, achievedPerSecond: 50, latency: { p50: 40, p90: 60, p99: 90, p999: 99, max: 99 } }),
    ]);
    expect(slowed[0].fellBehind).toBe(true);
  });

  it('prints one line per workload and contender, then the system/B2 ratios where both ran', () => {
    const table = markdownTable(steps);
    expect(table).toContain('| W1 create pay-in | system | 112–177 | 12.2 | 29.4 | 13.0 | 3.00 | 2 |');
    expect(table).toContain('| W1 create pay-in | B2 | 1,106–1,340 | 2.90 | 6.70 | 1.60 | 1.00 | 0 |');
    expect(table).toContain('| W3 payout | system | 80.0 | 200 | 400 * | 5.00 | — | 0 |');
    expect(table).toContain('\\* fell behind its schedule');
    expect(table).toContain('| W1 create pay-in | 0.118 | 4.39 | 8.13 |');
    expect(table).not.toMatch(/\| W3 payout \| [0-9—.]+ \| [0-9—.]+ \| [0-9—.]+ \|$/m);
  });
});

describe('the latency-versus-load points', () => {
  const open = (round: number, loadShare: number, rate: number, p50: number, p99: number) =>
    step({ round, mode: 'open', loadShare, ratePerSecond: rate, achievedPerSecond: rate, latency: { p50, p90: p99, p99, p999: p99, max: p99 } });
  const steps: StepResult[] = [
    step({ round: 1, achievedPerSecond: 120 }),
    open(1, 0.5, 60, 20, 100),
    open(1, 0.25, 30, 10, 40),
    open(1, 0.75, 90, 60, 300),
    step({ round: 2, achievedPerSecond: 140 }),
    open(2, 0.5, 70, 24, 120),
    open(2, 0.25, 35, 12, 50),
    step({ contender: 'B2', mode: 'open', loadShare: 0.5, ratePerSecond: 800 }),
  ];

  it('keeps the table at half saturation: the chart steps at other shares do not enter it', () => {
    const [system] = tableRows(steps);
    expect(system).toMatchObject({ contender: 'system', p50: [20, 24], p99: [100, 120] });
  });

  it('gives one point per load share of one contender, the median over the rounds, sorted by offered load', () => {
    expect(chartPoints(steps, 'W1 create pay-in', 'system')).toEqual([
      { offeredPerSecond: 32.5, p50Ms: 11, p99Ms: 45 },
      { offeredPerSecond: 65, p50Ms: 22, p99Ms: 110 },
      { offeredPerSecond: 90, p50Ms: 60, p99Ms: 300 },
    ]);
    expect(chartPoints(steps, 'W1 create pay-in', 'B1')).toEqual([]);
  });
});

describe('the smoke verdict', () => {
  it('names every step with an answer its workload did not expect, and nothing for a clean run, however slow', () => {
    const slow = step({ latency: { p50: 900, p90: 2000, p99: 9000, p999: 9000, max: 9000 }, achievedPerSecond: 1 });
    expect(smokeProblems([slow, step({ mode: 'open', ratePerSecond: 50 })])).toEqual([]);
    const broken = { ...step({ workload: 'W4 withdrawal', mode: 'open', ratePerSecond: 15, errors: 2 }), statuses: { '201': 28, '500': 2 } };
    expect(smokeProblems([slow, broken])).toEqual([
      'system W4 withdrawal r1 open at 15 req/s: 2 answers the workload did not expect (HTTP statuses {"201":28,"500":2})',
    ]);
  });
});
