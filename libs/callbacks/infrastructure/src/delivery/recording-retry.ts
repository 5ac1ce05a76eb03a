import { classifyError, StreamVersionConflictError } from '@mp/shared-messaging';
import { backOff } from 'exponential-backoff';

/**
 * A few tries of recording an attempt: again, from a fresh read of the row, when another writer
 * moved the delivery on since the claim or the read; again when PostgreSQL aborted the record
 * for a reason that passes (a deadlock victim, a dropped connection). An attempt that could not
 * be recorded stays leased and is sent again once its lease runs out, so every try here is one
 * request the merchant does not get twice. The pause grows and is jittered, so two records that
 * collided do not meet again in lockstep.
 */
export function recordingAgainOnConflict(record: (again: boolean) => Promise<void>): Promise<void> {
  let tries = 0;
  return backOff(
    () => {
      tries += 1;
      return record(tries > 1);
    },
    {
      numOfAttempts: 4,
      startingDelay: 20,
      maxDelay: 500,
      timeMultiple: 3,
      jitter: 'full',
      retry: (error: unknown) => error instanceof StreamVersionConflictError || classifyError(error) === 'transient',
    },
  );
}
