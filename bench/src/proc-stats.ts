import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * CPU and memory of processes from /proc, hand-written because the figures needed are a few
 * fields of /proc/<pid>/stat (proc(5)) and no maintained package reads them without spawning
 * `ps` per sample.
 */
export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** Clock ticks in user and kernel mode, this process's own threads. */
  utime: number;
  stime: number;
  /** Clock ticks of its children that have exited and been waited for. */
  cutime: number;
  cstime: number;
  /** Resident set size in pages. */
  rssPages: number;
}

/** Parses one /proc/<pid>/stat line. The command name may contain spaces and parentheses, so fields are counted from the last ')'. */
export function parseProcStat(text: string): ProcStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${text.slice(0, 80)}`);
  const pid = Number(text.slice(0, open).trim());
  const comm = text.slice(open + 1, close);
  // After ')': field 3 (state) is at index 0, so field N is at index N - 3.
  const rest = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const field = (n: number) => Number(rest[n - 3]);
  return { pid, comm, ppid: field(4), utime: field(14), stime: field(15), cutime: field(16), cstime: field(17), rssPages: field(24) };
}

/** CPU ticks charged to a set of live processes, counting exited children once (in their parent's cutime/cstime). */
export function totalTicks(stats: readonly ProcStat[]): number {
  return stats.reduce((sum, stat) => sum + stat.utime + stat.stime + stat.cutime + stat.cstime, 0);
}

/** Every pid in the trees rooted at `roots` (roots included), from a list of live processes. */
export function descendantsOf(roots: readonly number[], all: readonly ProcStat[]): number[] {
  const children = new Map<number, number[]>();
  for (const stat of all) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat.pid]);
  const result = new Set<number>();
  const queue = roots.filter((pid) => all.some((stat) => stat.pid === pid));
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (result.has(pid)) continue;
    result.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...result];
}

export function readProcStat(pid: number): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null; // exited meanwhile
  }
}

export function readAllProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

let clockTicksPerSecond: number | undefined;
export function ticksPerSecond(): number {
  clockTicksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return clockTicksPerSecond;
}

/** Page size for RSS; 4 KiB on every Linux this runs on, but asked rather than assumed. */
let pageBytes: number | undefined;
export function pageSize(): number {
  pageBytes ??= Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim()) || 4096;
  return pageBytes;
}

/** The pid of the process listening on a loopback TCP port (from /proc/net/tcp and each process's fds). */
export function pidListeningOn(port: number): number | null {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length < 10) continue;
      const localPort = parseInt(columns[1].split(':')[1], 16);
      if (localPort === port && columns[3] === '0A') inodes.add(columns[9]);
    }
  }
  if (inodes.size === 0) return null;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      for (const fd of readdirSync(`/proc/${name}/fd`)) {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSafe(`/proc/${name}/fd/${fd}`));
        if (match && inodes.has(match[1])) return Number(name);
      }
    } catch {
      // not ours to read, or gone
    }
  }
  return null;
}

function readlinkSafe(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

/** A named group of process trees whose CPU and memory are measured together (e.g. "postgres": the postmaster and its backends). */
export interface ProcessGroup {
  name: string;
  rootPids: number[];
}

export interface GroupSnapshot {
  ticks: number;
  rssBytes: number;
}

export function snapshotGroups(groups: readonly ProcessGroup[]): Map<string, GroupSnapshot> {
  const all = readAllProcStats();
  const byPid = new Map(all.map((stat) => [stat.pid, stat]));
  const result = new Map<string, GroupSnapshot>();
  for (const group of groups) {
    const stats = descendantsOf(group.rootPids, all).map((pid) => byPid.get(pid) as ProcStat);
    result.set(group.name, { ticks: totalTicks(stats), rssBytes: stats.reduce((sum, stat) => sum + stat.rssPages, 0) * pageSize() });
  }
  return result;
}

/** CPU milliseconds between two snapshots of one group. */
export function cpuMsBetween(before: GroupSnapshot | undefined, after: GroupSnapshot | undefined, hz = ticksPerSecond()): number {
  if (!before || !after) return 0;
  return ((after.ticks - before.ticks) * 1000) / hz;
}
