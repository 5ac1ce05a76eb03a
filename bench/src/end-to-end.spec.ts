import { endToEndLatencies } from './end-to-end';

describe('end-to-end latency percentiles', () => {
  it('takes each latency from the intended send time and reads p50, p90, p99 and max', () => {
    // 100 calls intended at 0, 10, 20 … ms; call i seen (i + 1) ms after its intended time.
    const intended = new Map(Array.from({ length: 100 }, (_, index) => [`c${index}`, index * 10]));
    const seen = new Map(Array.from({ length: 100 }, (_, index) => [`c${index}`, index * 10 + index + 1]));
    const summary = endToEndLatencies(intended, seen, 5_000);
    expect(summary).toMatchObject({ calls: 100, seen: 100 });
    expect(summary.p50).toBeCloseTo(50, 1);
    expect(summary.p90).toBeCloseTo(90, 1);
    expect(summary.p99).toBeCloseTo(99, 1);
    expect(summary.max).toBeCloseTo(100, 1);
  });

  it('counts an effect never seen at the time the run gave up, so losses raise the tail instead of vanishing', () => {
    const intended = new Map(Array.from({ length: 100 }, (_, index) => [`c${index}`, 0]));
    const seen = new Map(Array.from({ length: 98 }, (_, index) => [`c${index}`, 5]));
    const summary = endToEndLatencies(intended, seen, 30_000);
    expect(summary).toMatchObject({ calls: 100, seen: 98 });
    expect(summary.p50).toBeCloseTo(5, 1);
    // Dropping the two lost calls would report p99 = 5 ms.
    expect(summary.p99).toBeGreaterThan(29_900);
  });

  it('reports no percentiles when no call was made', () => {
    expect(endToEndLatencies(new Map(), new Map(), 0)).toEqual({ calls: 0, seen: 0, p50: null, p90: null, p99: null, max: null });
  });
});
