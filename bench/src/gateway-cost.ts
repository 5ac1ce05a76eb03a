/**
 * What one pay-in create costs in CPU, without the whole benchmark (issue 21, "the gateway's
 * cost"): `node tools/run-built.mjs bench/src/gateway-cost.ts [--payins 2000] [--concurrency 8]
 * [--reads N] [--payouts N] [--idle-seconds N] [--durable] [--wal-records N] [--cpu-prof DIR]`. Starts the system on KAFKA_BROKERS /
 * TEST_PG_ADMIN_URL, warms it up, then sends signed creates at a fixed concurrency (no retries,
 * no duplicates) and prints, from /proc/<pid>/stat before and after, the CPU-ms per pay-in of
 * each of the six services (the consumers of its events included, given 2 s after the last
 * answer), of the Kafka broker and of PostgreSQL (the postmaster and its backends), and how many
 * times payments served the internal order read meanwhile (its own metrics). With `--reads N` it
 * then sends N status reads (W2's request) of the orders it created, at the same concurrency, and
 * prints their CPU-ms per read as well. With `--payouts N` it then funds eight merchants with
 * confirmed pay-ins and sends N payouts over them (W3's request: each places a ledger hold
 * before its order exists), after a warm-up of a tenth as many, and prints theirs. With `--idle-seconds N` it first prints what each of them
 * spends per second with no request at all, over N seconds. CPU-ms per pay-in holds up on a
 * shared machine far better than throughput does; each service's RSS at the end is printed too;
 * the load average is printed beside it so a busy run can be told apart. Each phase prints the
 * write transactions and WAL per request as well (the whole server's: use a PostgreSQL of its
 * own). `--durable` first turns on fsync, synchronous_commit and full_page_writes, as
 * `npm run bench` does (the test cluster starts without them); `--wal-records N` prints the N
 * largest kinds of WAL record of each phase (pg_walinspect), full-page images apart.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseCommandLine } from '@mp/shared-util-config';
import { CATALOG_SERVICE_NAMES, createOperator, registerAgent, SystemUnderTest, workspaceRoot } from '@mp/shared-testing';
import { createMerchants, FUNDING_PAY_IN_NET_RUB, fundMerchants } from './funding';
import { LoadClient, type MerchantCredentials } from './http-client';
import { requireDurableCommits, walRecordsBetween, writeCounters } from './measure';
import { cpuMsBetween, pageSize, pidListeningOn, readProcStat, snapshotGroups, type ProcessGroup } from './proc-stats';
import { benchedSystemEnvironment } from './system-environment';
import { OrderIds, PAYOUT_AMOUNT, PAYOUT_HOLD_RUB, payInBody, payoutBody } from './workloads';

const { values } = parseCommandLine({
  args: process.argv.slice(2),
  options: {
    payins: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '400' },
    reads: { type: 'string', default: '0' },
    payouts: { type: 'string', default: '0' },
    'idle-seconds': { type: 'string', default: '0' },
    durable: { type: 'boolean', default: false },
    'wal-records': { type: 'string', default: '0' },
    'cpu-prof': { type: 'string' },
  },
});
const payIns = Number(values.payins);
const concurrency = Number(values.concurrency);
const warmup = Number(values.warmup);
const reads = Number(values.reads);
const payouts = Number(values.payouts);
/** W3's spread: payouts go round-robin over this many funded merchants. */
const PAYOUT_MERCHANTS = 8;
const idleSeconds = Number(values['idle-seconds']);
const walRecords = Number(values['wal-records']);
const adminUrl = process.env['TEST_PG_ADMIN_URL'] ?? '';
/** How long after the last answer the event consumers are given to finish before CPU is read again. */
const CONSUMERS_SETTLE_MS = 2_000;
const ORDER_READ_ROUTE = 'route="/internal/merchants/:merchantId/orders/:orderId"';

async function main(): Promise<void> {
  const profileDirectory = values['cpu-prof'];
  if (values.durable) await requireDurableCommits(adminUrl);
  const system = await SystemUnderTest.start({
    env: benchedSystemEnvironment(),
    nodeArguments: profileDirectory
      ? ['--cpu-prof', `--cpu-prof-dir=${profileDirectory}`, '--require', join(workspaceRoot, 'bench/cpu-profile-preload.cjs')]
      : [],
  });
  try {
    const merchants: MerchantCredentials[] = [];
    for (let index = 0; index < 4; index += 1) merchants.push(await system.createMerchant(`Cost shop ${index}`));
    const client = new LoadClient(system.gatewayUrl, concurrency);
    const ids = new OrderIds();
    const created: Array<{ merchant: MerchantCredentials; orderId: string }> = [];
    /** `count` requests at `concurrency`, each made by `request(n)` and expected to answer `status`. */
    const drive = async (count: number, status: number, request: (n: number) => Promise<{ status: number; body: Buffer }>): Promise<void> => {
      let next = 0;
      const worker = async () => {
        while (next < count) {
          next += 1;
          const answer = await request(next);
          if (answer.status !== status) throw new Error(`answered ${answer.status}, not ${status}: ${answer.body.toString('utf8').slice(0, 300)}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    const send = (count: number) =>
      drive(count, 201, async (n) => {
        const merchant = merchants[n % merchants.length];
        const orderId = ids.next('cost');
        created.push({ merchant, orderId });
        return client.sendSigned(merchant, 'POST', '/v2/payments/incoming', payInBody(orderId, 150.5));
      });
    const read = (count: number) =>
      drive(count, 200, (n) => {
        const order = created[n % created.length];
        return client.sendSigned(order.merchant, 'GET', `/v2/payments/status/${order.orderId}`);
      });
    // Each service, then the broker and the database server, which serve them all (the postmaster and all its backends, as the benchmark groups them).
    const services: ProcessGroup[] = CATALOG_SERVICE_NAMES.map((service) => ({ name: service, rootPids: [system.pidOf(service) as number] }));
    const infrastructure: ProcessGroup[] = [
      { name: 'kafka', rootPids: [pidListeningOn(Number((process.env['KAFKA_BROKERS'] ?? '').split(',')[0].split(':')[1]))] },
      { name: 'postgres', rootPids: [pidListeningOn(Number(new URL(process.env['TEST_PG_ADMIN_URL'] ?? 'postgres://x:1').port))] },
    ].flatMap((group) => (group.rootPids[0] === null ? [] : [{ name: group.name, rootPids: group.rootPids as number[] }]));
    const groups = [...services, ...infrastructure];
    /** CPU-ms each process group spent between two snapshots, and the six services' sum. */
    const cpuMsSpent = (before: ReturnType<typeof snapshotGroups>, after: ReturnType<typeof snapshotGroups>) => {
      const spent = groups.map(({ name }) => ({ name, ms: cpuMsBetween(before.get(name), after.get(name)) }));
      const servicesMs = spent.slice(0, services.length).reduce((sum, { ms }) => sum + ms, 0);
      return { services: spent.slice(0, services.length), servicesMs, infrastructure: spent.slice(services.length) };
    };
    const orderReads = async () => {
      const exposition = await (await fetch(`${system.paymentsUrl}/metrics`)).text();
      return exposition
        .split('\n')
        .filter((line) => line.startsWith('http_server_request_duration_seconds_count{') && line.includes(ORDER_READ_ROUTE) && line.includes('method="GET"'))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    };

    /**
     * Runs one phase of `count` requests and prints its rate and each service's CPU-ms per request
     * (the services that only consume the events of a create count too: they are part of its cost).
     */
    const measured = async (label: string, count: number, run: (count: number) => Promise<void>): Promise<void> => {
      const writesBefore = await writeCounters(adminUrl);
      const before = { groups: snapshotGroups(groups), at: performance.now(), load: loadavg()[0] };
      await run(count);
      // The consumers of the requests' events finish after the last answer: their work counts.
      await new Promise((resolve) => setTimeout(resolve, CONSUMERS_SETTLE_MS));
      const after = { groups: snapshotGroups(groups), at: performance.now(), load: loadavg()[0] };
      const writesAfter = await writeCounters(adminUrl);
      const seconds = (after.at - before.at - CONSUMERS_SETTLE_MS) / 1000;
      console.log(
        `${label}s: ${count} at concurrency ${concurrency} in ${seconds.toFixed(1)} s (${(count / seconds).toFixed(0)}/s), load average ${before.load.toFixed(1)} → ${after.load.toFixed(1)}`,
      );
      const spent = cpuMsSpent(before.groups, after.groups);
      for (const { name, ms } of spent.services) console.log(`${name} CPU-ms per ${label}: ${(ms / count).toFixed(2)}`);
      console.log(`all six services, CPU-ms per ${label}: ${(spent.servicesMs / count).toFixed(2)}`);
      for (const { name, ms } of spent.infrastructure) console.log(`${name} CPU-ms per ${label}: ${(ms / count).toFixed(2)}`);
      const walBytes = writesAfter.walBytes - writesBefore.walBytes;
      console.log(
        `PostgreSQL per ${label}: ${((writesAfter.transactions - writesBefore.transactions) / count).toFixed(2)} write transactions, ${(walBytes / count / 1024).toFixed(2)} KB of WAL`,
      );
      if (walRecords > 0) {
        const kinds = await walRecordsBetween(adminUrl, writesBefore.walLsn, writesAfter.walLsn);
        const fullPageImages = kinds.reduce((sum, kind) => sum + kind.fullPageImageBytes, 0);
        console.log(
          `  of which full-page images: ${(fullPageImages / count / 1024).toFixed(2)} KB per ${label}; the largest kinds of record, bytes per ${label}:`,
        );
        for (const kind of kinds.slice(0, walRecords))
          console.log(
            `  ${kind.kind}: ${(kind.count / count).toFixed(2)} records, ${(kind.recordBytes / count).toFixed(0)} B${kind.fullPageImageBytes > 0 ? ` + ${(kind.fullPageImageBytes / count).toFixed(0)} B of page images` : ''}`,
          );
      }
    };

    await send(warmup);
    if (idleSeconds > 0) {
      // What each service spends with no request at all (polls, heartbeats, timers): a cost every request rate pays.
      await new Promise((resolve) => setTimeout(resolve, CONSUMERS_SETTLE_MS));
      const before = snapshotGroups(groups);
      await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
      const spent = cpuMsSpent(before, snapshotGroups(groups));
      const perSecond = (items: Array<{ name: string; ms: number }>) => items.map(({ name, ms }) => `${name} ${(ms / idleSeconds).toFixed(1)}`).join(', ');
      console.log(
        `idle, CPU-ms per second over ${idleSeconds} s: ${perSecond(spent.services)}; all six ${(spent.servicesMs / idleSeconds).toFixed(1)}; ${perSecond(spent.infrastructure)}`,
      );
    }
    const readsBefore = await orderReads();
    await measured('pay-in', payIns, send);
    const readsAfter = await orderReads();
    console.log(`payments order reads per pay-in: ${((readsAfter - readsBefore) / payIns).toFixed(2)}`);
    if (reads > 0) await measured('status read', reads, read);
    if (payouts > 0) {
      const warmPayouts = Math.ceil(payouts / 10);
      const operator = await createOperator(system, 'Cost operator');
      const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
      const payoutMerchants = await createMerchants(operator, PAYOUT_MERCHANTS, 'Cost payouts');
      const payInsEach = Math.ceil((((payouts + warmPayouts) / PAYOUT_MERCHANTS) * PAYOUT_HOLD_RUB) / FUNDING_PAY_IN_NET_RUB);
      await fundMerchants(
        { gateway: client, agentToken: agent.client.token },
        client,
        ids,
        payoutMerchants.map((merchant) => ({ merchant, payIns: payInsEach })),
      );
      const sendPayouts = (count: number) =>
        drive(count, 201, (n) =>
          client.sendSigned(payoutMerchants[n % PAYOUT_MERCHANTS], 'POST', '/v2/payments/outgoing', payoutBody(ids.next('cost-payout'), PAYOUT_AMOUNT)),
        );
      await sendPayouts(warmPayouts);
      await measured('payout', payouts, sendPayouts);
    }
    const rssMb = CATALOG_SERVICE_NAMES.map((service) => {
      const stat = readProcStat(system.pidOf(service) as number);
      return { service, mb: stat ? (stat.rssPages * pageSize()) / 2 ** 20 : NaN };
    });
    console.log(
      `RSS after the run, MB: ${rssMb.map(({ service, mb }) => `${service} ${mb.toFixed(0)}`).join(', ')}; all six ${rssMb.reduce((sum, { mb }) => sum + mb, 0).toFixed(0)}`,
    );
  } finally {
    await system.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
