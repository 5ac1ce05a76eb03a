/**
 * Open-loop load: requests are scheduled at a fixed rate whatever the server does, and each
 * latency is measured from the request's intended send time, not from when it was actually
 * sent. A server that stalls therefore shows the stall in every request scheduled behind it,
 * so the percentiles are free of coordinated omission (Gil Tene). The schedule is pure and
 * unit-tested; the runner only waits for the next due time and fires.
 */

/** How many requests a run at `ratePerSecond` for `durationMs` sends (the last one before the end). */
export function scheduledCount(ratePerSecond: number, durationMs: number): number {
  if (!(ratePerSecond > 0) || !(durationMs > 0)) return 0;
  return Math.floor((ratePerSecond * durationMs) / 1000);
}

/** When request `index` (0-based) is meant to be sent: evenly spaced from `startMs`. */
export function intendedSendTime(startMs: number, ratePerSecond: number, index: number): number {
  return startMs + (index * 1000) / ratePerSecond;
}

/** The indexes due at `nowMs` that have not been sent yet: [fromIndex, toIndex). */
export function dueRange(startMs: number, ratePerSecond: number, fromIndex: number, total: number, nowMs: number): { fromIndex: number; toIndex: number } {
  const dueUpTo = Math.floor(((nowMs - startMs) * ratePerSecond) / 1000) + 1;
  return { fromIndex, toIndex: Math.max(fromIndex, Math.min(total, dueUpTo)) };
}

export interface Outcome {
  /** HTTP status, or 0 when no answer came (connection error, timeout). */
  status: number;
  /** Whether the workload expected this answer (a 409 for a mismatched duplicate is expected). */
  ok: boolean;
}

/**
 * Sends request `index`; resolves when its answer is complete. `intendedAtMs` (on the loop's
 * clock, performance.now() by default) is when the open loop meant to send it (the actual send
 * time in a closed loop): what an effect seen later (a balance, a callback) is timed from.
 */
export type SendRequest = (index: number, intendedAtMs: number) => Promise<Outcome>;

export interface LoopSample {
  /** Latency in microseconds (from the intended send time in open loop). */
  latencyMicros: number;
  outcome: Outcome;
}

export interface OpenLoopOptions {
  ratePerSecond: number;
  durationMs: number;
  send: SendRequest;
  record: (sample: LoopSample) => void;
  /** A run that is hopelessly behind stops scheduling after this many requests in flight. */
  maxInFlight?: number;
  now?: () => number;
}

export interface LoopSummary {
  scheduled: number;
  sent: number;
  completed: number;
  /** Requests never sent because maxInFlight was reached (counted as errors by the caller). */
  skipped: number;
  elapsedMs: number;
}

/** Runs the schedule; resolves when every sent request has completed. */
export async function runOpenLoop(options: OpenLoopOptions): Promise<LoopSummary> {
  const now = options.now ?? (() => performance.now());
  const total = scheduledCount(options.ratePerSecond, options.durationMs);
  const maxInFlight = options.maxInFlight ?? 4096;
  const startMs = now() + 2;
  let next = 0;
  let inFlight = 0;
  let completed = 0;
  let skipped = 0;
  const pending: Promise<void>[] = [];
  while (next < total) {
    const { toIndex } = dueRange(startMs, options.ratePerSecond, next, total, now());
    for (; next < toIndex; next += 1) {
      const intended = intendedSendTime(startMs, options.ratePerSecond, next);
      if (inFlight >= maxInFlight) {
        skipped += 1;
        options.record({ latencyMicros: Math.round((now() - intended) * 1000), outcome: { status: 0, ok: false } });
        continue;
      }
      inFlight += 1;
      pending.push(
        options.send(next, intended).then((outcome) => {
          inFlight -= 1;
          completed += 1;
          options.record({ latencyMicros: Math.max(1, Math.round((now() - intended) * 1000)), outcome });
        }),
      );
    }
    if (next >= total) break;
    const waitMs = intendedSendTime(startMs, options.ratePerSecond, next) - now();
    // setTimeout sleeps at least ~1 ms; shorter waits yield to I/O instead, so answers are read on time.
    await new Promise<void>((resolve) => (waitMs >= 1 ? setTimeout(resolve, Math.floor(waitMs)) : setImmediate(resolve)));
  }
  await Promise.all(pending);
  return { scheduled: total, sent: total - skipped, completed, skipped, elapsedMs: now() - startMs };
}

export interface ClosedLoopOptions {
  connections: number;
  durationMs: number;
  send: SendRequest;
  record: (sample: LoopSample) => void;
  now?: () => number;
}

/**
 * Closed loop: `connections` clients each send the next request as soon as the previous one is
 * answered, for `durationMs`. Only for saturation throughput: its latencies are not open-loop ones.
 */
export async function runClosedLoop(options: ClosedLoopOptions): Promise<LoopSummary> {
  const now = options.now ?? (() => performance.now());
  const startMs = now();
  const endMs = startMs + options.durationMs;
  let index = 0;
  let completed = 0;
  const worker = async () => {
    while (now() < endMs) {
      const sentAt = now();
      const outcome = await options.send(index++, sentAt);
      completed += 1;
      options.record({ latencyMicros: Math.max(1, Math.round((now() - sentAt) * 1000)), outcome });
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  return { scheduled: index, sent: index, completed, skipped: 0, elapsedMs: now() - startMs };
}
