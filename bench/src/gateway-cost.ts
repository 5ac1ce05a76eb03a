/**
 * What one pay-in costs the gateway and payments in CPU, without the whole benchmark (issue 21,
 * "the gateway's cost"): `node tools/run-built.mjs bench/src/gateway-cost.ts [--payins 2000]
 * [--concurrency 8] [--cpu-prof DIR]`. Starts the system on KAFKA_BROKERS / TEST_PG_ADMIN_URL,
 * warms it up, then sends signed creates at a fixed concurrency (no retries, no duplicates) and
 * prints, from /proc/<pid>/stat before and after, the CPU-ms per pay-in of the gateway and of
 * payments, and how many times payments served the internal order read meanwhile (its own
 * metrics). With `--reads N` it then sends N status reads (W2's request) of the orders it created,
 * at the same concurrency, and prints their CPU-ms per read as well. CPU-ms per pay-in holds up
 * on a shared machine far better than throughput does; each service's RSS at the end is printed too;
 * the load average is printed beside it so a busy run can be told apart.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseCommandLine } from '@mp/shared-util-config';
import { CATALOG_SERVICE_NAMES, SystemUnderTest, workspaceRoot } from '@mp/shared-testing';
import { LoadClient, type MerchantCredentials } from './http-client';
import { pageSize, readProcStat } from './proc-stats';
import { benchedSystemEnvironment } from './system-environment';
import { OrderIds, payInBody } from './workloads';

const { values } = parseCommandLine({
  args: process.argv.slice(2),
  options: {
    payins: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '400' },
    reads: { type: 'string', default: '0' },
    'cpu-prof': { type: 'string' },
  },
});
const payIns = Number(values.payins);
const concurrency = Number(values.concurrency);
const warmup = Number(values.warmup);
const reads = Number(values.reads);
/** /proc/<pid>/stat counts clock ticks; Linux reports them at 100 per second (getconf CLK_TCK). */
const MS_PER_TICK = 10;
const ORDER_READ_ROUTE = 'route="/internal/merchants/:merchantId/orders/:orderId"';

async function main(): Promise<void> {
  const profileDirectory = values['cpu-prof'];
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
    const cpuTicks = (instance: 'gateway' | 'payments') => {
      const stat = readProcStat(system.pidOf(instance) as number);
      if (!stat) throw new Error(`${instance} is not running`);
      return stat.utime + stat.stime;
    };
    const orderReads = async () => {
      const exposition = await (await fetch(`${system.paymentsUrl}/metrics`)).text();
      return exposition
        .split('\n')
        .filter((line) => line.startsWith('http_server_request_duration_seconds_count{') && line.includes(ORDER_READ_ROUTE) && line.includes('method="GET"'))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    };

    /** Runs one phase of `count` requests and prints its rate and the gateway's and payments' CPU-ms per request. */
    const measured = async (label: string, count: number, run: (count: number) => Promise<void>): Promise<void> => {
      const before = { gateway: cpuTicks('gateway'), payments: cpuTicks('payments'), at: performance.now(), load: loadavg()[0] };
      await run(count);
      const after = { gateway: cpuTicks('gateway'), payments: cpuTicks('payments'), at: performance.now(), load: loadavg()[0] };
      const perRequest = (ticks: number) => ((ticks * MS_PER_TICK) / count).toFixed(2);
      const seconds = (after.at - before.at) / 1000;
      console.log(
        `${label}s: ${count} at concurrency ${concurrency} in ${seconds.toFixed(1)} s (${(count / seconds).toFixed(0)}/s), load average ${before.load.toFixed(1)} → ${after.load.toFixed(1)}`,
      );
      console.log(`gateway CPU-ms per ${label}: ${perRequest(after.gateway - before.gateway)}`);
      console.log(`payments CPU-ms per ${label}: ${perRequest(after.payments - before.payments)}`);
    };

    await send(warmup);
    const readsBefore = await orderReads();
    await measured('pay-in', payIns, send);
    const readsAfter = await orderReads();
    console.log(`payments order reads per pay-in: ${((readsAfter - readsBefore) / payIns).toFixed(2)}`);
    if (reads > 0) await measured('status read', reads, read);
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
