import { build } from 'hdr-histogram-js';

/**
 * Latency from an API call to its effect seen elsewhere (the balance read showing a credit, the
 * callback arriving at the sink), free of coordinated omission: each sample starts at the
 * call's intended send time of the open-loop schedule, and an effect never seen is not dropped
 * but counted at the moment the run gave up waiting (a lower bound of its latency), so a lost
 * callback worsens the percentiles instead of vanishing from them. Pure, unit-tested.
 */
export interface EndToEndSummary {
  /** Calls made (each one sample). */
  calls: number;
  /** Calls whose effect was seen before the run gave up waiting. */
  seen: number;
  /** Milliseconds; null when no call was made. */
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

/**
 * `intendedAtMs`: each call's intended send time; `seenAtMs`: when its effect was seen (absent
 * when never); `gaveUpAtMs`: when the run stopped waiting. All on one clock (performance.now()).
 */
export function endToEndLatencies(intendedAtMs: ReadonlyMap<string, number>, seenAtMs: ReadonlyMap<string, number>, gaveUpAtMs: number): EndToEndSummary {
  // Microseconds from 1 µs to 10 min, 3 significant digits, like the steps' histograms.
  const histogram = build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3 });
  let seen = 0;
  try {
    for (const [key, intended] of intendedAtMs) {
      const at = seenAtMs.get(key);
      if (at !== undefined) seen += 1;
      const micros = Math.round(((at ?? gaveUpAtMs) - intended) * 1000);
      histogram.recordValue(Math.min(600_000_000, Math.max(1, micros)));
    }
    if (intendedAtMs.size === 0) return { calls: 0, seen: 0, p50: null, p90: null, p99: null, max: null };
    const ms = (micros: number) => micros / 1000;
    return {
      calls: intendedAtMs.size,
      seen,
      p50: ms(histogram.getValueAtPercentile(50)),
      p90: ms(histogram.getValueAtPercentile(90)),
      p99: ms(histogram.getValueAtPercentile(99)),
      max: ms(histogram.maxValue),
    };
  } finally {
    histogram.destroy();
  }
}
