import { DEFAULT_CONFLICT_RETRY_POLICY, retryOnConflict } from '@mp/shared-command-handling';
import { classifyError } from '@mp/shared-messaging';

/**
 * A few tries of recording an attempt: again, from a fresh read of the row, when another writer
 * moved the delivery on since the claim or the read; again when PostgreSQL aborted the record
 * for a reason that passes (a deadlock victim, a dropped connection). An attempt that could not
 * be recorded stays leased and is sent again once its lease runs out, so every try here is one
 * request the merchant does not get twice.
 */
export function recordingAgainOnConflict(record: (again: boolean) => Promise<void>): Promise<void> {
  let tries = 0;
  return retryOnConflict(
    DEFAULT_CONFLICT_RETRY_POLICY,
    () => record(++tries > 1),
    (error) => classifyError(error) === 'transient',
  );
}
