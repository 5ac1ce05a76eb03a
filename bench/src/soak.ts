/**
 * The soak run (issue 23): W5 open-loop at half its saturation for 30 minutes, sampling every
 * service's memory and sockets, PostgreSQL's backends and Kafka's consumer lag, then fitting a
 * slope to each after the warm-up. Start it with `npm run soak` (`-- --quick` for CI's short
 * version); bench/soak.mjs provides the infrastructure. docs/operations/soak.md explains it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ConfigError, parseCommandLine } from '@mp/shared-util-config';
import { createOperator, registerAgent, SystemUnderTest, workspaceRoot, type BackofficeClient, type ServiceName } from '@mp/shared-testing';
import { CallbackSink } from './callback-sink';
import { benchedSystemEnvironment } from './system-environment';
import { createMerchants, fundMerchants, FUNDING_PAY_IN_NET_RUB, FUNDING_PAY_IN_RUB } from './funding';
import { assertLedgerAudited } from './history';
import { LoadClient, type MerchantCredentials } from './http-client';
import { newHistogram } from './measure';
import { MixedState, mixedWorkload, prepareMixedPools } from './mixed-workload';
import { checkWithdrawalMoney, convertRubToUsdt } from './money-checks';
import { runClosedLoop, runOpenLoop, type LoopSample, type SendRequest } from './open-loop';
import { pidListeningOn } from './proc-stats';
import { formatNumber } from './report';
import {
  formatSlope,
  seriesOf,
  soakVerdict,
  summarizeSeries,
  w5FundingPerMerchant,
  WARM_UP_SHARE,
  W5_SHARE,
  type MinuteFigures,
  type SampleValues,
  type SeriesKind,
} from './soak-analysis';
import { soakChartSvg } from './soak-chart';
import { renderSoakMarkdown } from './soak-report';
import { SoakSampler, type WatchedProcess } from './soak-sampler';
import { AcceptedWithdrawals, OrderIds } from './workloads';

interface SoakOptions {
  quick: boolean;
  loadMinutes: number;
  /** W5's rate; null: half of the saturation a short closed loop finds. */
  rate: number | null;
  sampleEverySeconds: number;
  probeSeconds: number;
  connections: number;
  merchants: number;
  /** Pay-ins prepared with their agent for W5's dispute opens, at most (the run needs 2 % of its requests). */
  disputablePoolCap: number;
}

function parseOptions(argv: string[]): SoakOptions {
  const { values } = parseCommandLine({
    args: argv,
    options: { quick: { type: 'boolean', default: false }, minutes: { type: 'string' }, rate: { type: 'string' }, 'sample-seconds': { type: 'string' } },
  });
  const positive = (name: 'minutes' | 'rate' | 'sample-seconds'): number | null => {
    const given = values[name];
    if (given === undefined) return null;
    const number = Number(given);
    if (!Number.isFinite(number) || number <= 0) throw new ConfigError([`--${name} must be a positive number, got ${JSON.stringify(given)}`]);
    return number;
  };
  const quick = values.quick;
  return {
    quick,
    // Quick: 45 s of load, so the whole run with its own infrastructure stays near 75 s wall.
    loadMinutes: positive('minutes') ?? (quick ? 0.75 : 30),
    rate: positive('rate'),
    sampleEverySeconds: positive('sample-seconds') ?? (quick ? 2 : 5),
    probeSeconds: quick ? 3 : 10,
    connections: 32,
    merchants: quick ? 4 : 8,
    disputablePoolCap: quick ? 20 : 300,
  };
}

const startedMs = performance.now();
const log = (line: string) => console.log(`[soak ${((performance.now() - startedMs) / 1000).toFixed(1).padStart(6)} s] ${line}`);
const cleanups: Array<() => Promise<unknown>> = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) await (cleanups.pop() as () => Promise<unknown>)().catch((error) => console.error(`[soak] cleanup: ${error}`));
}

/** A funded W5 merchant set with its own pools: the probe and the soak each get one, so the soak's funding can follow the rate the probe found. */
interface W5Fixture {
  merchants: MerchantCredentials[];
  state: MixedState;
  fundedUsdt: Map<string, number>;
}

/** The most W5 req/s the probe's merchants are funded for (a closed loop on this system reaches about 100 on 2 cores). */
const PROBE_SATURATION_CAP = 400;
const CHART_TITLES: Record<SeriesKind, string> = {
  rss: 'Memory per process (MB)',
  connections: 'Open sockets and PostgreSQL backends',
  lag: 'Consumer lag per group (messages)',
};
/** RUB per USDT bought by the operator's conversion (money-checks' 0.01 rate, less the ledger's 1 % fee), rounded up. */
const RUB_PER_USDT = 101.02;

async function prepareW5(
  context: {
    system: SystemUnderTest;
    operator: BackofficeClient;
    approver: BackofficeClient;
    gateway: LoadClient;
    agentToken: string;
    sink: CallbackSink;
    ids: OrderIds;
  },
  label: string,
  count: number,
  funding: { payoutRub: number; usdt: number },
  disputable: number,
): Promise<W5Fixture> {
  const { operator, approver, gateway, ids, sink } = context;
  const merchants = await createMerchants(operator, count, `Soak ${label}`, sink.url);
  const rubForUsdt = Math.ceil(funding.usdt * RUB_PER_USDT);
  const payInsEach = Math.max(1, Math.ceil((funding.payoutRub + rubForUsdt) / FUNDING_PAY_IN_NET_RUB));
  log(
    `${label}: funding ${count} merchants with ${payInsEach} confirmed pay-ins of ${formatNumber(FUNDING_PAY_IN_RUB)} RUB each, ${formatNumber(rubForUsdt)} RUB of it converted to USDT`,
  );
  const available = await fundMerchants(
    { gateway, agentToken: context.agentToken },
    gateway,
    ids,
    merchants.map((merchant) => ({ merchant, payIns: payInsEach })),
    { idPrefix: 'soak-funding', creditTimeoutMs: 120_000 },
  );
  const short = merchants.filter((_, index) => available[index] < payInsEach * FUNDING_PAY_IN_NET_RUB - 0.005);
  if (short.length > 0)
    throw new Error(`gave up waiting for the funding of ${short.map(({ merchantId }) => merchantId).join(', ')} to be credited after 120 s`);
  const fundedUsdt = new Map<string, number>();
  for (const merchant of merchants) {
    fundedUsdt.set(merchant.merchantId, await convertRubToUsdt(operator, approver, gateway, merchant, rubForUsdt, ids.next('soak-conversion')));
  }
  const state = new MixedState(new AcceptedWithdrawals());
  await prepareMixedPools(gateway, merchants, ids, sink.url, state, { disputable, cancellable: 20 });
  const disputableIds = state.disputable.map((order) => order.orderId);
  // The disputes service decides on its own projection of payments' events: a dispute open before it knows the agent would be refused.
  await waitFor(`the disputes service knowing the agents of ${label}'s pool`, 60_000, async () => {
    const [row] = await context.system.query<{ known: number }>(
      'disputes',
      'SELECT count(*)::int AS known FROM dispute_orders WHERE order_id = ANY($1) AND agent_id IS NOT NULL',
      [disputableIds],
    );
    return row.known === disputableIds.length;
  });
  return { merchants, state, fundedUsdt };
}

async function waitFor(what: string, timeoutMs: number, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Per-minute load figures: every request lands in the minute it completed in. */
class MinuteRecorder {
  private readonly minutes: Array<{ histogram: ReturnType<typeof newHistogram>; completed: number; errors: number }> = [];
  errors = 0;
  constructor(private readonly startedAtMs: number) {}

  readonly record = (sample: LoopSample) => {
    const index = Math.max(0, Math.floor((performance.now() - this.startedAtMs) / 60_000));
    while (this.minutes.length <= index) this.minutes.push({ histogram: newHistogram(), completed: 0, errors: 0 });
    const minute = this.minutes[index];
    minute.histogram.recordValue(Math.min(sample.latencyMicros, 120_000_000));
    if (sample.outcome.status !== 0) minute.completed += 1;
    if (!sample.outcome.ok) {
      minute.errors += 1;
      this.errors += 1;
    }
  };

  figures(loadMs: number): MinuteFigures[] {
    return this.minutes.map((minute, index) => {
      const seconds = Math.min(60, Math.max(1, (loadMs - index * 60_000) / 1000));
      const figures = {
        minute: index,
        seconds,
        completed: minute.completed,
        errors: minute.errors,
        achievedPerSecond: minute.completed / seconds,
        p50Ms: minute.histogram.getValueAtPercentile(50) / 1000,
        p99Ms: minute.histogram.getValueAtPercentile(99) / 1000,
      };
      minute.histogram.destroy();
      return figures;
    });
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const startedAt = new Date();
  const limit = setTimeout(
    () => {
      console.error('[soak] time limit reached: stopping');
      void cleanUp().finally(() => process.exit(2));
    },
    (options.loadMinutes + 15) * 60_000,
  );
  const adminUrl = requiredEnv('TEST_PG_ADMIN_URL');
  const brokers = requiredEnv('KAFKA_BROKERS').split(',');
  const ownInfra = process.env['BENCH_OWN_INFRA'] === '1';
  if (!ownInfra) log("using the shared Kafka and PostgreSQL from the environment: their memory includes everyone else's work");
  const loadAtStart = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

  log('starting the system (gateway, payments, ledger, disputes, withdrawals, callback dispatcher)');
  const system = await SystemUnderTest.start({
    // What is soaked is the services under a steady load, as deployed (their heap limits), not the merchant rate limit.
    env: benchedSystemEnvironment(),
  });
  cleanups.push(() => system.stop());
  const sink = await new CallbackSink().start();
  cleanups.push(() => sink.stop());
  const gateway = new LoadClient(system.gatewayUrl, 1024);
  cleanups.push(async () => gateway.close());
  const operator = await createOperator(system, 'Soak operator');
  // Conversions over one operator's limit wait for a second, unrelated operator, as in production.
  const approver = await createOperator(system, 'Soak approver');
  const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  const ids = new OrderIds();
  const context = { system, operator, approver, gateway, agentToken: agent.client.token, sink, ids };

  const loadMs = options.loadMinutes * 60_000;
  const prepareSoak = (rate: number) =>
    prepareW5(
      context,
      'soak',
      options.merchants,
      w5FundingPerMerchant(rate, loadMs / 1000, options.merchants),
      Math.min(options.disputablePoolCap, Math.ceil(W5_SHARE.disputeOpen * rate * (loadMs / 1000))),
    );
  let saturation: number | null = null;
  const fixtures: W5Fixture[] = [];
  // Quick: the soak's merchants are funded for the most the probe could find, beside the probe's own, so CI waits for one funding instead of two.
  let soak = options.quick && options.rate === null ? prepareSoak(PROBE_SATURATION_CAP / 2) : null;
  // Awaited below; until then a failure must not count as unhandled (the probe's own failure ends the run first).
  soak?.catch(() => undefined);
  if (options.rate === null) {
    const probe = await prepareW5(context, 'probe', 4, w5FundingPerMerchant(PROBE_SATURATION_CAP, options.probeSeconds + 1, 4), options.quick ? 10 : 30);
    fixtures.push(probe);
    await soak;
    const send = mixedWorkload(gateway, probe.merchants, ids, sink.url, probe.state);
    await runClosedLoop({ connections: options.connections, durationMs: 1_000, send, record: () => undefined });
    let errors = 0;
    const closed = await runClosedLoop({
      connections: options.connections,
      durationMs: options.probeSeconds * 1000,
      send,
      record: (sample) => (errors += sample.outcome.ok ? 0 : 1),
    });
    saturation = closed.completed / (closed.elapsedMs / 1000);
    log(
      `W5 saturation (closed loop, ${options.connections} connections, ${options.probeSeconds} s): ${formatNumber(saturation)} req/s, ${errors} unexpected answers`,
    );
    if (errors > 0) throw new Error(`the saturation probe got ${errors} unexpected answers: ${probe.state.describe()}`);
    if (saturation > PROBE_SATURATION_CAP)
      throw new Error(`W5 saturates above ${PROBE_SATURATION_CAP} req/s, more than the merchants are funded for: raise PROBE_SATURATION_CAP`);
  }
  const rate = options.rate ?? Math.max(1, (saturation as number) / 2);
  soak ??= prepareSoak(rate);
  const soakFixture = await soak;
  fixtures.push(soakFixture);
  const disputable = soakFixture.state.disputable.length;

  const services: ServiceName[] = ['gateway', 'payments', 'ledger', 'disputes', 'withdrawals', 'callbacks'];
  const kafkaPid = Number(process.env['BENCH_KAFKA_PID']) || pidListeningOn(Number(brokers[0].split(':')[1]));
  const postgresPid = pidListeningOn(Number(new URL(adminUrl).port));
  if (!kafkaPid || !postgresPid) throw new Error(`cannot find the process of ${kafkaPid ? 'PostgreSQL' : 'the Kafka broker'}`);
  const processes: WatchedProcess[] = [
    ...services.map((service) => ({ name: service, pid: system.pidOf(service) as number })),
    { name: 'kafka', pid: kafkaPid },
    { name: 'postgres', pid: postgresPid, withDescendants: true },
  ];
  const sampler = new SoakSampler({ processes, socketsOf: services, adminUrl, runId: system.runId, brokers });
  cleanups.push(() => sampler.close());
  const samples: SampleValues[] = [];
  const samplingFailures: string[] = [];
  let sampling: Promise<void> | null = null;
  const takeSample = () => {
    // One at a time: a slow sample on a busy machine is skipped over, not stacked up.
    sampling ??= sampler
      .sample()
      .then((sample) => void samples.push(sample))
      .catch((error: Error) => void samplingFailures.push(`${new Date().toISOString()}: ${error.message}`))
      .finally(() => (sampling = null));
    return sampling;
  };

  log(
    `W5 open loop at ${formatNumber(rate)} req/s for ${formatNumber(options.loadMinutes)} min over ${options.merchants} merchants (${disputable} pay-ins ready for dispute opens), sampling every ${options.sampleEverySeconds} s`,
  );
  const loadStartedAtMs = Date.now();
  const recorder = new MinuteRecorder(performance.now());
  await takeSample();
  const timer = setInterval(() => void takeSample(), options.sampleEverySeconds * 1000);
  const progress = setInterval(() => log(`${samples.length} samples, ${recorder.errors} errors so far; ${describeLatest(samples)}`), 60_000);
  const send: SendRequest = mixedWorkload(gateway, soakFixture.merchants, ids, sink.url, soakFixture.state);
  const loop = await runOpenLoop({ ratePerSecond: rate, durationMs: loadMs, send, record: recorder.record });
  clearInterval(timer);
  clearInterval(progress);
  await sampling;
  await takeSample();
  const loadSamples = samples.length;
  const minutes = recorder.figures(loop.elapsedMs);
  log(
    `load done: ${loop.completed} of ${loop.scheduled} requests answered, ${recorder.errors} unexpected or unanswered (${loop.skipped} of them never sent: too far behind)`,
  );

  log('draining the consumers, then the checks: every accepted withdrawal debited once, the ledger auditor, signed callbacks');
  // Drain samples are kept in the JSON report, not fitted: the slopes are the load's.
  await waitFor('the consumer lag to reach 0 after the load', 120_000, async () => {
    await takeSample();
    return Object.values(samples[samples.length - 1]?.lag ?? { unknown: 1 }).every((lag) => lag === 0);
  }).catch((error: Error) => samplingFailures.push(error.message));
  const moneyProblems = [
    ...(await Promise.all(fixtures.map((fixture) => checkWithdrawalMoney(gateway, fixture.merchants, fixture.fundedUsdt, fixture.state.withdrawals)))).flat(),
    ...(await assertLedgerAudited(system.databaseUrl('ledger')).then(
      () => [],
      (error: Error) => [error.message],
    )),
    ...(sink.unsigned > 0 ? [`${sink.unsigned} callbacks arrived without a signature`] : []),
  ];
  const series = seriesOf(samples.slice(0, loadSamples), loadStartedAtMs);
  const summaries = series.map((one) => summarizeSeries(one, options.loadMinutes));
  const verdict = soakVerdict({
    quick: options.quick,
    summaries,
    errors: recorder.errors /* skipped requests are recorded as errors too */,
    moneyProblems,
    samplingFailures,
  });

  const finishedAt = new Date();
  const command = `npm run soak${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, load average ${loadAtStart} at start and ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')} at the end (a machine shared with other work shows in these); ${ownInfra ? 'private Kafka and PostgreSQL' : 'SHARED Kafka and PostgreSQL'}`;
  const workload = `${soakFixture.state.describe()}; ${sink.describe()}`;
  const reports = join(workspaceRoot, 'reports');
  mkdirSync(reports, { recursive: true });
  const name = `soak-${startedAt.toISOString().replace(/[:.]/g, '-')}${options.quick ? '-quick' : ''}`;
  const base = join(reports, name);
  const charts = (Object.keys(CHART_TITLES) as SeriesKind[]).flatMap((kind) => {
    const ofKind = series.filter((one) => one.kind === kind);
    if (ofKind.length === 0) return [];
    const file = `${name}-${kind}.svg`;
    writeFileSync(
      join(reports, file),
      soakChartSvg({
        title: CHART_TITLES[kind],
        unit: ofKind[0].unit,
        series: ofKind,
        loadMinutes: options.loadMinutes,
        warmUpMinutes: options.loadMinutes * WARM_UP_SHARE,
      }),
    );
    return [file];
  });
  const run = {
    startedAt,
    finishedAt,
    commit: gitCommit(),
    command,
    quick: options.quick,
    machine,
    saturationPerSecond: saturation,
    ratePerSecond: rate,
    loadMinutes: options.loadMinutes,
    sampleEverySeconds: options.sampleEverySeconds,
    minutes,
    summaries,
    workload,
    verdict,
    charts,
  };
  const markdown = renderSoakMarkdown(run);
  writeFileSync(`${base}.json`, JSON.stringify({ ...run, options, loop, moneyProblems, samplingFailures, loadStartedAtMs, loadSamples, samples }, null, 2));
  writeFileSync(`${base}.md`, markdown);
  console.log(`\n${markdown}`);
  log(`report: ${base}.json and ${base}.md, charts ${charts.join(', ')}`);
  clearTimeout(limit);
  await cleanUp();
  process.exitCode = verdict.passed ? 0 : 1;
}

function describeLatest(samples: readonly SampleValues[]): string {
  const latest = samples[samples.length - 1];
  if (!latest) return 'no sample yet';
  const rss = Object.entries(latest.rssMb)
    .map(([name, mb]) => `${name} ${mb.toFixed(0)}`)
    .join(', ');
  const lag = Object.values(latest.lag).reduce((sum, value) => sum + value, 0);
  return `RSS MB ${rss}; consumer lag ${lag} messages in all (slope of the total so far ${samples.length > 1 ? formatSlope(((lag - Object.values(samples[0].lag).reduce((sum, value) => sum + value, 0)) * 60_000) / (latest.atMs - samples[0].atMs)) : '—'}/min)`;
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: workspaceRoot, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the soak with npm run soak`);
  return value;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`[soak] ${signal}: stopping`);
    void cleanUp().finally(() => process.exit(130));
  });
}

main().catch(async (error) => {
  console.error(`[soak] failed: ${error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : error}`);
  await cleanUp();
  process.exit(1);
});
