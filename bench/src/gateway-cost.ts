/**
 * What one pay-in costs the gateway and payments in CPU, without the whole benchmark (issue 21,
 * "the gateway's cost"): `node tools/run-built.mjs bench/src/gateway-cost.ts [--payins 2000]
 * [--concurrency 8] [--cpu-prof DIR]`. Starts the system on KAFKA_BROKERS / TEST_PG_ADMIN_URL,
 * warms it up, then sends signed creates at a fixed concurrency (no retries, no duplicates) and
 * prints, from /proc/<pid>/stat before and after, the CPU-ms per pay-in of the gateway and of
 * payments, and how many times payments served the internal order read meanwhile (its own
 * metrics). CPU-ms per pay-in holds up on a shared machine far better than throughput does;
 * the load average is printed beside it so a busy run can be told apart.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseCommandLine } from '@mp/shared-util-config';
import { SystemUnderTest, workspaceRoot } from '@mp/shared-testing';
import { LoadClient, type MerchantCredentials } from './http-client';
import { readProcStat } from './proc-stats';
import { benchedSystemEnvironment } from './system-environment';
import { OrderIds, payInBody } from './workloads';

const { values } = parseCommandLine({
  args: process.argv.slice(2),
  options: {
    payins: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '400' },
    'cpu-prof': { type: 'string' },
  },
});
const payIns = Number(values.payins);
const concurrency = Number(values.concurrency);
const warmup = Number(values.warmup);
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
    const send = async (count: number): Promise<void> => {
      let next = 0;
      const worker = async () => {
        while (next < count) {
          next += 1;
          const answer = await client.sendSigned(merchants[next % merchants.length], 'POST', '/v2/payments/incoming', payInBody(ids.next('cost'), 150.5));
          if (answer.status !== 201) throw new Error(`create answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
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

    await send(warmup);
    const before = { gateway: cpuTicks('gateway'), payments: cpuTicks('payments'), reads: await orderReads(), at: performance.now(), load: loadavg()[0] };
    await send(payIns);
    const after = { gateway: cpuTicks('gateway'), payments: cpuTicks('payments'), reads: await orderReads(), at: performance.now(), load: loadavg()[0] };
    const perPayIn = (ticks: number) => ((ticks * MS_PER_TICK) / payIns).toFixed(2);
    const seconds = (after.at - before.at) / 1000;
    console.log(
      `pay-ins: ${payIns} at concurrency ${concurrency} in ${seconds.toFixed(1)} s (${(payIns / seconds).toFixed(0)}/s), load average ${before.load.toFixed(1)} → ${after.load.toFixed(1)}`,
    );
    console.log(`gateway CPU-ms per pay-in: ${perPayIn(after.gateway - before.gateway)}`);
    console.log(`payments CPU-ms per pay-in: ${perPayIn(after.payments - before.payments)}`);
    console.log(`payments order reads per pay-in: ${((after.reads - before.reads) / payIns).toFixed(2)}`);
  } finally {
    await system.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
