import { cpuMsBetween, descendantsOf, parseProcStat, totalTicks, type ProcStat } from './proc-stats';

// A real line from a JVM (fields after the name: state, ppid, ... utime=14 stime=15 cutime=16 cstime=17 ... rss=24).
const JAVA_LINE =
  '4242 (java) S 1 4242 4242 0 -1 4194560 83213 0 12 0 5321 871 3 9 20 0 61 0 123456 2936012800 98765 18446744073709551615 1 1 0 0 0 0 0 3 16800972 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0';

describe('/proc/<pid>/stat parsing', () => {
  it('reads CPU ticks, parent and resident pages', () => {
    expect(parseProcStat(JAVA_LINE)).toEqual({ pid: 4242, comm: 'java', ppid: 1, utime: 5321, stime: 871, cutime: 3, cstime: 9, rssPages: 98765 });
  });

  it('counts fields from the last parenthesis, so a name with spaces and parentheses cannot shift them', () => {
    const line = JAVA_LINE.replace('(java)', '(postgres: payments (bench) idle)');
    expect(parseProcStat(line)).toMatchObject({ comm: 'postgres: payments (bench) idle', ppid: 1, utime: 5321, stime: 871 });
  });

  it('refuses text that is not a stat line', () => {
    expect(() => parseProcStat('garbage')).toThrow(/not a \/proc/);
  });
});

describe('CPU accounting of process groups', () => {
  const stat = (pid: number, ppid: number, utime: number, stime = 0, cutime = 0, cstime = 0): ProcStat => ({
    pid,
    comm: 'p',
    ppid,
    utime,
    stime,
    cutime,
    cstime,
    rssPages: 1,
  });

  it('takes a postmaster with its backends, not its siblings', () => {
    const all = [stat(10, 1, 0), stat(11, 10, 0), stat(12, 10, 0), stat(13, 12, 0), stat(20, 1, 0)];
    expect(descendantsOf([10], all).sort()).toEqual([10, 11, 12, 13]);
    expect(descendantsOf([99], all)).toEqual([]);
  });

  it('keeps an exited backend’s CPU, which moves into the postmaster’s children ticks', () => {
    const before = totalTicks([stat(10, 1, 100), stat(11, 10, 50, 10)]);
    // Backend 11 used 20 more ticks, exited and was waited for: its 80 ticks are now the postmaster's cutime/cstime.
    const after = totalTicks([stat(10, 1, 100, 0, 70, 10)]);
    expect(after - before).toBe(20);
  });

  it('converts tick deltas to milliseconds at the clock rate', () => {
    expect(cpuMsBetween({ ticks: 100, rssBytes: 0 }, { ticks: 350, rssBytes: 0 }, 100)).toBe(2500);
    expect(cpuMsBetween(undefined, { ticks: 350, rssBytes: 0 }, 100)).toBe(0);
  });
});
