/**
 * When a callback is attempted again. The default follows Standard Webhooks' example schedule:
 * at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after the previous
 * attempt: ten attempts over about 75 hours (3 days and 3 hours). Each delay gets ±20 % jitter
 * so receivers that came back up are not hit by every sender at the same second.
 */
export const DEFAULT_RETRY_SCHEDULE = '0s,5s,5m,30m,2h,5h,10h,14h,20h,24h';
export const RETRY_JITTER_RATIO = 0.2;

export interface RetrySchedule {
  /** Delay before attempt n+1 (index 0 is the first attempt, normally 0). */
  delaysMs: number[];
  jitterRatio: number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `0s,5s,5m,...`: one delay per attempt; throws with the offending entry. */
export function parseRetrySchedule(text: string, jitterRatio = RETRY_JITTER_RATIO): RetrySchedule {
  const delaysMs = text.split(',').map((entry) => {
    const match = /^\s*(\d{1,9})(ms|s|m|h|d)\s*$/.exec(entry);
    if (!match) throw new Error(`"${entry}" is not a delay like 5s, 30m or 2h`);
    return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  });
  if (delaysMs.length < 1 || delaysMs.length > 50) throw new Error('the schedule must have 1 to 50 attempts');
  return { delaysMs, jitterRatio };
}

/** Every attempt's nominal time from the first, for the schedule table of docs/api/callbacks.md and operators. */
export function cumulativeDelaysMs(schedule: RetrySchedule): number[] {
  let total = 0;
  return schedule.delaysMs.map((delay) => (total += delay));
}

/**
 * The delay before the next attempt after `attemptsMade` attempts, jittered by `random()` in
 * [0, 1); null when the schedule is exhausted (the delivery has failed for good).
 */
export function nextRetryDelayMs(schedule: RetrySchedule, attemptsMade: number, random: () => number = Math.random): number | null {
  const nominal = schedule.delaysMs[attemptsMade];
  if (nominal === undefined) return null;
  const jitter = nominal * schedule.jitterRatio * (2 * random() - 1);
  return Math.max(0, Math.round(nominal + jitter));
}
