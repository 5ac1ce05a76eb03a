import { StreamVersionConflictError } from '@mp/shared-messaging';
import { recordingAgainOnConflict } from './recording-retry';

/** PostgreSQL's error as node-postgres raises it, with its SQLSTATE. */
const postgresError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('recording an attempt again', () => {
  it('records again after a deadlock and after a version conflict, from a fresh read the second time', async () => {
    for (const failure of [postgresError('40P01', 'deadlock detected'), new StreamVersionConflictError('callback-delivery:msg_1', 2)]) {
      const calls: boolean[] = [];
      await recordingAgainOnConflict(async (again) => {
        calls.push(again);
        if (calls.length === 1) throw failure;
      });
      expect(calls).toEqual([false, true]);
    }
  });

  /** How many times the record ran before `failure`, thrown every time, reached the caller. */
  async function triesBeforeGivingUp(failure: Error): Promise<number> {
    let calls = 0;
    await expect(
      recordingAgainOnConflict(async () => {
        calls += 1;
        throw failure;
      }),
    ).rejects.toBe(failure);
    return calls;
  }

  it('gives up after four tries of a failure that keeps coming back', async () => {
    expect(await triesBeforeGivingUp(postgresError('40P01', 'deadlock detected'))).toBe(4);
  });

  it('does not try again after an error that will not pass (a constraint the record breaks)', async () => {
    expect(await triesBeforeGivingUp(postgresError('23514', 'new row violates check constraint'))).toBe(1);
  });
});
