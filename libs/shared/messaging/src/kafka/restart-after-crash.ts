import { backOff } from 'exponential-backoff';

/**
 * kafkajs restarts a crashed consumer only when it deems the error retriable; otherwise the
 * consumer stays stopped for good while the process runs on. The chaos run's broker restart
 * showed it: the withdrawals consumer crashed with "Failed to find group coordinator" (restart:
 * false), the service stayed live, and every withdrawal after it timed out until the run ended.
 * A consumer must come back by itself once the broker does, so this starts it again, backing
 * off, until it runs or its subscription stops (the signal).
 */
export interface RestartAfterCrashOptions {
  /** Connects and runs the consumer again; throws when it cannot (the broker still away). */
  start: () => Promise<void>;
  /** Aborted when the subscription stops: no further attempt is made. */
  signal: AbortSignal;
  log: (line: string) => void;
  startingDelayMs?: number;
  maxDelayMs?: number;
}

/** Resolves true once the consumer runs again, false when the subscription stopped first. */
export async function restartAfterCrash({ start, signal, log, startingDelayMs = 1_000, maxDelayMs = 30_000 }: RestartAfterCrashOptions): Promise<boolean> {
  if (signal.aborted) return false;
  try {
    await backOff(
      async () => {
        if (signal.aborted) return;
        await start();
      },
      {
        numOfAttempts: Number.MAX_SAFE_INTEGER,
        startingDelay: startingDelayMs,
        maxDelay: maxDelayMs,
        jitter: 'full',
        delayFirstAttempt: true,
        retry: (error: unknown, attempt: number) => {
          log(`restarting the crashed consumer failed (attempt ${attempt}): ${String(error)}`);
          return !signal.aborted;
        },
      },
    );
  } catch {
    // Only reached when retry() said stop, i.e. the subscription was stopped meanwhile.
    return false;
  }
  return !signal.aborted;
}
