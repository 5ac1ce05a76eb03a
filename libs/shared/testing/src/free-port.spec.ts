import { freePort } from './system-under-test';

/**
 * A system asks for seven ports before any service binds one. The kernel may hand the same free
 * port to two probes in a row (each probe closes before the next), which gave two services one
 * port (a CI run: withdrawals failed with EADDRINUSE and payments answered in its place). Over
 * 400 probes a repeat is likely (the birthday bound over about 28,000 ephemeral ports), so
 * without the bookkeeping this fails most of the time.
 */
describe('freePort', () => {
  it('never hands out the same port twice in one process', async () => {
    const ports: number[] = [];
    for (let index = 0; index < 400; index += 1) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});

/**
 * Under `npm test` two jest workers hand out ports at once (MP_TEST_WORKERS). Each takes its own
 * share; the first version split by parity, and since Linux gives `listen(0)` odd ports only, the
 * first worker looped forever (and ran out of heap) on every end-to-end file it was given.
 */
describe('freePort with two jest workers', () => {
  const loadFreePortAs = (workerId: string): typeof freePort => {
    const saved = { workers: process.env['MP_TEST_WORKERS'], worker: process.env['JEST_WORKER_ID'] };
    process.env['MP_TEST_WORKERS'] = '2';
    process.env['JEST_WORKER_ID'] = workerId;
    try {
      let loaded: typeof freePort | undefined;
      jest.isolateModules(() => {
        loaded = (require('./system-under-test') as typeof import('./system-under-test')).freePort;
      });
      return loaded as typeof freePort;
    } finally {
      process.env['MP_TEST_WORKERS'] = saved.workers;
      process.env['JEST_WORKER_ID'] = saved.worker;
      if (saved.workers === undefined) delete process.env['MP_TEST_WORKERS'];
    }
  };

  it('gives each worker ports, and never one the other worker could get', async () => {
    const first = loadFreePortAs('1');
    const second = loadFreePortAs('2');
    const firstPorts: number[] = [];
    const secondPorts: number[] = [];
    for (let index = 0; index < 50; index += 1) {
      firstPorts.push(await first());
      secondPorts.push(await second());
    }
    const share = (port: number) => Math.floor(port / 2) % 2;
    expect(new Set(firstPorts.map(share))).toEqual(new Set([0]));
    expect(new Set(secondPorts.map(share))).toEqual(new Set([1]));
  }, 20_000);
});
