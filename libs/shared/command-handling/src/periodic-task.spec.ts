import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  it('runs one at a time: a run asked for during another joins it', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const task = new PeriodicTask(
      async () => {
        runs += 1;
        await new Promise<void>((resolve) => (release = resolve));
        return runs;
      },
      () => undefined,
    );
    const first = task.runNow();
    const second = task.runNow();
    release();
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    const third = task.runNow();
    release();
    expect(await third).toBe(2);
  });

  it('waits for the run in progress when it stops, and reports failed runs', async () => {
    const errors: unknown[] = [];
    let finished = false;
    let calls = 0;
    const task = new PeriodicTask(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
        await new Promise((resolve) => setTimeout(resolve, 50));
        finished = true;
      },
      (error) => errors.push(error),
    );
    task.start(10);
    // Stop while the second run (after the failed first) is in progress.
    // Polled every 5 ms, not with eventually's 50: the second run lasts 50 ms, and the stop must land inside it.
    while (calls < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await task.stop();
    expect(errors.map(String)).toEqual(['Error: database down']);
    expect(finished).toBe(true);
    const callsAtStop = calls;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(calls).toBe(callsAtStop);
  });
});
