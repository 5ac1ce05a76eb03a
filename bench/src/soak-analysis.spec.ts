import {
  FLAT_THRESHOLD_PER_MINUTE,
  leastSquaresSlope,
  seriesOf,
  soakVerdict,
  steadyPart,
  summarizeSeries,
  w5FundingPerMerchant,
  type SampleValues,
  type Series,
  type SeriesPoint,
} from './soak-analysis';

const line = (slope: number, intercept: number, minutes: number[]): SeriesPoint[] => minutes.map((minute) => ({ minute, value: intercept + slope * minute }));
const everyHalfMinute = (until: number) => Array.from({ length: until * 2 + 1 }, (_, index) => index / 2);

describe('the least-squares slope', () => {
  it('recovers the slope of a straight line, in units per minute', () => {
    expect(leastSquaresSlope(line(0.75, 200, [0, 1, 2, 5, 9]))).toBeCloseTo(0.75, 10);
    expect(leastSquaresSlope(line(-2, 10, everyHalfMinute(30)))).toBeCloseTo(-2, 10);
  });

  it('fits through noise: a sawtooth around a flat level has a slope near 0', () => {
    const sawtooth = everyHalfMinute(30).map((minute, index) => ({ minute, value: 300 + (index % 6) * 10 }));
    expect(Math.abs(leastSquaresSlope(sawtooth))).toBeLessThan(0.2);
  });

  it('is 0 with fewer than two points or a single instant', () => {
    expect(leastSquaresSlope([])).toBe(0);
    expect(leastSquaresSlope([{ minute: 3, value: 7 }])).toBe(0);
    expect(
      leastSquaresSlope([
        { minute: 3, value: 7 },
        { minute: 3, value: 9 },
      ]),
    ).toBe(0);
  });
});

describe('the warm-up cut', () => {
  it('drops the first 20 % of the load, keeping the sample at the boundary', () => {
    const steady = steadyPart(line(1, 0, everyHalfMinute(30)), 30);
    expect(steady[0].minute).toBe(6);
    expect(steady).toHaveLength(49);
  });

  it('judges only what follows the warm-up: a heap filling up in the first minutes, then level, is flat', () => {
    const filling = everyHalfMinute(30).map((minute) => ({ minute, value: minute < 5 ? 100 + minute * 20 : 200 }));
    const summary = summarizeSeries({ name: 'rss payments', kind: 'rss', unit: 'MB', points: filling }, 30);
    expect(summary.slopePerMinute).toBeCloseTo(0, 10);
    expect(summary.flat).toBe(true);
    expect([summary.start, summary.end, summary.min, summary.max]).toEqual([100, 200, 100, 200]);
    expect(leastSquaresSlope(filling)).toBeGreaterThan(1);
  });
});

describe('a series summary', () => {
  const rss = (slope: number): Series => ({ name: 'rss gateway', kind: 'rss', unit: 'MB', points: line(slope, 200, everyHalfMinute(30)) });

  it('reports the slope per minute and as a share of the steady mean per hour', () => {
    const summary = summarizeSeries(rss(0.5), 30);
    expect(summary.slopePerMinute).toBeCloseTo(0.5, 10);
    // steady mean: 200 + 0.5 × 18 (the middle of minutes 6–30) = 209; 30 MB an hour of it
    expect(summary.mean).toBeCloseTo(209, 10);
    expect(summary.percentPerHour).toBeCloseTo((30 / 209) * 100, 10);
    expect(summary.flat).toBe(true);
  });

  it('is not flat at or above its kind threshold; shrinking is always flat', () => {
    expect(summarizeSeries(rss(FLAT_THRESHOLD_PER_MINUTE.rss), 30).flat).toBe(false);
    expect(summarizeSeries(rss(-5), 30).flat).toBe(true);
    const lag: Series = { name: 'lag ledger.payment-events', kind: 'lag', unit: 'messages', points: line(12, 0, everyHalfMinute(30)) };
    expect(summarizeSeries(lag, 30).flat).toBe(false);
    const sockets: Series = { name: 'sockets payments', kind: 'connections', unit: 'connections', points: line(0.4, 30, everyHalfMinute(30)) };
    expect(summarizeSeries(sockets, 30).flat).toBe(true);
  });

  it('has no percentage when the mean is 0 (a lag that stays at 0)', () => {
    expect(summarizeSeries({ name: 'lag x', kind: 'lag', unit: 'messages', points: line(0, 0, [0, 1, 2, 3]) }, 3).percentPerHour).toBeNull();
  });
});

describe('the verdict', () => {
  const flat = summarizeSeries({ name: 'rss ledger', kind: 'rss', unit: 'MB', points: line(0, 150, everyHalfMinute(30)) }, 30);
  const growing = summarizeSeries({ name: 'rss payments', kind: 'rss', unit: 'MB', points: line(3, 150, everyHalfMinute(30)) }, 30);
  const clean = { errors: 0, moneyProblems: [], samplingFailures: [] };

  it('passes a full run whose series are all flat, with no error', () => {
    expect(soakVerdict({ quick: false, summaries: [flat], ...clean })).toEqual({ passed: true, reasons: [], slopesJudged: true });
  });

  it('fails a full run on a growing series, naming it', () => {
    const verdict = soakVerdict({ quick: false, summaries: [flat, growing], ...clean });
    expect(verdict.passed).toBe(false);
    expect(verdict.reasons).toEqual(['rss payments grows +3.00 MB/min after the warm-up (threshold 1)']);
  });

  it("shows but does not judge the broker's and the database server's memory", () => {
    const kafka = summarizeSeries({ name: 'rss kafka', kind: 'rss', unit: 'MB', points: line(3, 250, everyHalfMinute(30)) }, 30);
    expect(kafka).toMatchObject({ flat: false, judged: false });
    expect(soakVerdict({ quick: false, summaries: [flat, kafka], ...clean }).passed).toBe(true);
  });

  it('fails a full run whose series has no steady samples to fit', () => {
    const short = summarizeSeries({ name: 'lag x', kind: 'lag', unit: 'messages', points: [{ minute: 0, value: 1 }] }, 30);
    expect(soakVerdict({ quick: false, summaries: [short], ...clean }).passed).toBe(false);
  });

  it('does not judge a quick run by its slopes, only by errors, money and sampling', () => {
    expect(soakVerdict({ quick: true, summaries: [growing], ...clean })).toEqual({ passed: true, reasons: [], slopesJudged: false });
    const broken = soakVerdict({
      quick: true,
      summaries: [flat],
      errors: 2,
      moneyProblems: ['m1: USDT available 3, expected 4'],
      samplingFailures: ['payments (pid 42) is gone'],
    });
    expect(broken.passed).toBe(false);
    expect(broken.reasons).toEqual([
      '2 requests got an answer the workload did not expect (or none)',
      'money check: m1: USDT available 3, expected 4',
      'sampling: payments (pid 42) is gone',
    ]);
  });
});

describe('samples as series', () => {
  it('makes one series per name and kind, in minutes from the load start, a missing value counting as 0', () => {
    const samples: SampleValues[] = [
      { atMs: 60_000, rssMb: { gateway: 200 }, sockets: { gateway: 12 }, pgBackends: { payments: 10, ledger: 3 }, lag: { 'ledger.payment-events': 4 } },
      { atMs: 90_000, rssMb: { gateway: 202 }, sockets: { gateway: 13 }, pgBackends: { payments: 10 }, lag: {} },
    ];
    expect(seriesOf(samples, 60_000)).toEqual([
      {
        name: 'rss gateway',
        kind: 'rss',
        unit: 'MB',
        points: [
          { minute: 0, value: 200 },
          { minute: 0.5, value: 202 },
        ],
      },
      {
        name: 'sockets gateway',
        kind: 'connections',
        unit: 'connections',
        points: [
          { minute: 0, value: 12 },
          { minute: 0.5, value: 13 },
        ],
      },
      {
        name: 'pg backends payments',
        kind: 'connections',
        unit: 'connections',
        points: [
          { minute: 0, value: 10 },
          { minute: 0.5, value: 10 },
        ],
      },
      {
        name: 'pg backends ledger',
        kind: 'connections',
        unit: 'connections',
        points: [
          { minute: 0, value: 3 },
          { minute: 0.5, value: 0 },
        ],
      },
      {
        name: 'lag ledger.payment-events',
        kind: 'lag',
        unit: 'messages',
        points: [
          { minute: 0, value: 4 },
          { minute: 0.5, value: 0 },
        ],
      },
    ]);
  });
});

describe("W5's funding", () => {
  it('covers every payout hold and withdrawal of the run, a third to spare, split over the merchants', () => {
    // 100 req/s for 30 min: 18,000 payouts (10 %) holding 1,065.00 RUB and 9,000 withdrawals (5 %) taking 11.00 USDT, over 8 merchants
    expect(w5FundingPerMerchant(100, 1800, 8)).toEqual({
      payoutRub: Math.ceil(((18_000 * 1065) / 8) * (4 / 3)),
      usdt: Math.ceil(((9_000 * 11) / 8) * (4 / 3)),
    });
  });
});
