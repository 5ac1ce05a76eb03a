import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { Client } from 'pg';
import { descendantsOf, pageSize, readAllProcStats, readProcStat } from './proc-stats';
import type { SampleValues } from './soak-analysis';

/** One process (tree) whose memory and sockets the soak run follows. */
export interface WatchedProcess {
  name: string;
  pid: number;
  /** PostgreSQL: the postmaster and every backend, their proportional set sizes summed (shared buffers counted once, not once per backend). */
  withDescendants?: boolean;
}

const MB = 1_048_576;

/** Sockets a process has open: its /proc/<pid>/fd entries that are sockets (TCP, Unix), whoever is at the other end. */
export function countSockets(pid: number): number {
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets += 1;
    } catch {
      // closed between the listing and the readlink
    }
  }
  return sockets;
}

/** Pss from /proc/<pid>/smaps_rollup in bytes; null when it cannot be read (another user's process). */
function proportionalSetBytes(pid: number): number | null {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Memory of a watched process in MB: its RSS, or, for a tree, the sum of its processes' Pss (RSS where Pss is unreadable). */
function memoryMb(watched: WatchedProcess): number {
  if (!watched.withDescendants) {
    const stat = readProcStat(watched.pid);
    if (!stat) throw new Error(`${watched.name} (pid ${watched.pid}) is gone`);
    return (stat.rssPages * pageSize()) / MB;
  }
  const all = readAllProcStats();
  const pids = descendantsOf([watched.pid], all);
  if (pids.length === 0) throw new Error(`${watched.name} (pid ${watched.pid}) is gone`);
  const byPid = new Map(all.map((stat) => [stat.pid, stat]));
  return pids.reduce((sum, pid) => sum + (proportionalSetBytes(pid) ?? (byPid.get(pid)?.rssPages ?? 0) * pageSize()), 0) / MB;
}

/**
 * Consumer lag per group of this run, the way kafkajs's admin reports it (the messaging port's
 * own lag gauge lives inside each service): for every partition a group has committed, the
 * log end offset minus the committed one, summed over the group's partitions.
 */
export async function consumerLag(admin: Admin, groupPrefix: string): Promise<Record<string, number>> {
  const { groups } = await admin.listGroups();
  const lag: Record<string, number> = {};
  const endOffsets = new Map<string, Map<number, number>>();
  const endOf = async (topic: string) => {
    let ends = endOffsets.get(topic);
    if (!ends) {
      ends = new Map((await admin.fetchTopicOffsets(topic)).map((entry) => [entry.partition, Number(entry.high)]));
      endOffsets.set(topic, ends);
    }
    return ends;
  };
  for (const { groupId } of groups.filter((group) => group.groupId.startsWith(groupPrefix)).sort((a, b) => a.groupId.localeCompare(b.groupId))) {
    let behind = 0;
    for (const { topic, partitions } of await admin.fetchOffsets({ groupId })) {
      const ends = await endOf(topic);
      // -1: nothing committed on that partition yet; the consumers start from its beginning.
      for (const { partition, offset } of partitions) behind += Math.max(0, (ends.get(partition) ?? 0) - Math.max(0, Number(offset)));
    }
    lag[groupId.slice(groupPrefix.length).replace(/^[._-]/, '')] = behind;
  }
  return lag;
}

/** Samples the processes, PostgreSQL's backends per database of the run and the run's consumer groups. */
export class SoakSampler {
  private readonly kafka: Kafka;
  private admin: Admin | null = null;

  constructor(
    private readonly options: {
      processes: readonly WatchedProcess[];
      /** Only these have their sockets counted (a PostgreSQL backend's socket is the service's connection seen from the other side). */
      socketsOf: readonly string[];
      adminUrl: string;
      /** The run's databases are `<prefix>_<service>`; its consumer groups start with the same prefix. */
      runId: string;
      brokers: string[];
    },
  ) {
    this.kafka = new Kafka({ clientId: 'soak-sampler', brokers: options.brokers, logLevel: logLevel.NOTHING });
  }

  async sample(): Promise<SampleValues> {
    const atMs = Date.now();
    const rssMb: Record<string, number> = {};
    const sockets: Record<string, number> = {};
    for (const watched of this.options.processes) {
      rssMb[watched.name] = memoryMb(watched);
      if (this.options.socketsOf.includes(watched.name)) sockets[watched.name] = countSockets(watched.pid);
    }
    const pgBackends = await this.backendsPerDatabase();
    if (!this.admin) {
      this.admin = this.kafka.admin();
      await this.admin.connect();
    }
    const lag = await consumerLag(this.admin, this.options.runId);
    return { atMs, rssMb, sockets, pgBackends, lag };
  }

  async close(): Promise<void> {
    await this.admin?.disconnect().catch(() => undefined);
  }

  private async backendsPerDatabase(): Promise<Record<string, number>> {
    const client = new Client({ connectionString: this.options.adminUrl });
    await client.connect();
    try {
      const prefix = `${this.options.runId}_`;
      const { rows } = await client.query<{ datname: string; backends: number }>(
        'SELECT datname, count(*)::int AS backends FROM pg_stat_activity WHERE left(datname, length($1)) = $1 AND pid <> pg_backend_pid() GROUP BY datname ORDER BY datname',
        [prefix],
      );
      return Object.fromEntries(rows.map((row) => [row.datname.slice(prefix.length), row.backends]));
    } finally {
      await client.end();
    }
  }
}
