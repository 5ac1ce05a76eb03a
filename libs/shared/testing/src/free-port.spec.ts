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
