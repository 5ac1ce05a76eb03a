/**
 * The benchmark (issue 9): the system and its yardsticks in one run, interleaved (system, B2,
 * B1, pgbench, then again), on loopback, bounded in time. Start it with `npm run bench`
 * (`-- --quick` for a short smoke run); bench/run.mjs provides the infrastructure.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { ConfigError, parseCommandLine } from '@mp/shared-util-config';
import { createOperator, registerAgent, SystemUnderTest, workspaceRoot } from '@mp/shared-testing';
import { pgbenchDrive, startYardstick, type RunningYardstick } from './contenders';
import { CallbackSink } from './callback-sink';
import { benchedSystemEnvironment } from './system-environment';
import { assertLedgerAudited, measureLedgerLag, seedLedgerHistory, timeHolds, type HoldTimings, type LagResult } from './history';
import { LoadClient } from './http-client';
import { createMerchants, fundMerchants } from './funding';
import { latencyChartSvg } from './latency-chart';
import { closedLoop, describeStep, openLoop, requireDurableCommits, runStep, type MeasuredContender, type StepExtras } from './measure';
import { MixedState, mixedWorkload, prepareMixedPools } from './mixed-workload';
import { checkWithdrawalMoney, convertRubToUsdt } from './money-checks';
import { runClosedLoop, runOpenLoop, type SendRequest } from './open-loop';
import { pidListeningOn, readProcStat } from './proc-stats';
import { chartPoints, cpuBreakdownTable, smokeProblems, formatNumber, markdownTable, TABLE_LOAD_SHARE, type StepResult } from './report';
import { describeVisibility, measureVisibility, type VisibilityResult } from './visibility';
import {
  AcceptedWithdrawals,
  createPayInWorkload,
  OrderIds,
  PAYOUT_HOLD_RUB,
  payoutWorkload,
  statusWorkload,
  withdrawalWorkload,
  WORKLOADS,
  type CreatedOrder,
} from './workloads';

interface Options {
  quick: boolean;
  rounds: number;
  warmMs: number;
  stepMs: number;
  connections: number;
  pgbenchClients: number;
  spreadMerchants: number;
  fundingPerSpreadMerchant: number;
  fundingHotMerchant: number;
  historyEvents: number;
  historySamples: number;
  historyBudgetMs: number;
  lagMs: number;
  lagChainsPerSecond: number;
  /**
   * The W1 background of the ledger-lag and end-to-end chains, in req/s: half of this run's W1
   * saturation when not given. A fixed figure compares two commits at the same load, since half
   * of a faster system's saturation is a heavier background.
   */
  backgroundRate: number | null;
  timeLimitMs: number;
  /** The latency-versus-load chart's extra open-loop steps (W1 system and B2, W5), as shares of the contender's saturation; ½ is the table's step. */
  chartShares: number[];
  /** Agent confirmations per second timed to the balance and the callback, and how often the balance is read meanwhile. */
  visibilityRate: number;
  balancePollMs: number;
  /** Confirmed 500,000.00 RUB pay-ins per W4 merchant, all converted to USDT; W5 merchants get two each, 250,000.00 RUB of it converted. */
  fundingPerWithdrawalMerchant: number;
  /** W5's prepared pay-ins: with an agent (for dispute opens) and plain (the first cancels'). */
  disputablePool: number;
  cancellablePool: number;
  /** Where the services write V8 CPU profiles (`--cpu-prof`), one per process, when they stop. */
  cpuProfileDirectory: string | null;
}

/** The numeric flags, each `--name N`, and what --quick or a full run uses when it is absent. */
const NUMERIC_FLAGS = [
  'rounds',
  'warm-seconds',
  'seconds',
  'connections',
  'pgbench-clients',
  'history-events',
  'history-budget-seconds',
  'lag-seconds',
  'lag-rate',
  'background-rate',
  'time-limit-minutes',
] as const;
const DEFAULT_PROFILE_DIRECTORY = 'bench/results/profiles';

function parseOptions(argv: string[]): Options {
  const { values } = parseCommandLine({
    // `--cpu-prof` takes an optional DIR, which parseArgs cannot express: a bare one gets the default first.
    args: argv.map((arg, index) =>
      arg === '--cpu-prof' && (argv[index + 1] === undefined || argv[index + 1].startsWith('--')) ? `--cpu-prof=${DEFAULT_PROFILE_DIRECTORY}` : arg,
    ),
    options: {
      quick: { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      ...Object.fromEntries(NUMERIC_FLAGS.map((name) => [name, { type: 'string' as const }])),
    },
  });
  const quick = values.quick;
  const value = (name: (typeof NUMERIC_FLAGS)[number], fallback: number) => {
    const given = (values as Record<string, string | boolean | undefined>)[name];
    if (given === undefined) return fallback;
    const number = Number(given);
    if (!Number.isFinite(number) || number <= 0) throw new ConfigError([`--${name} must be a positive number, got ${JSON.stringify(given)}`]);
    return number;
  };
  return {
    quick,
    rounds: value('rounds', quick ? 1 : 2),
    warmMs: value('warm-seconds', quick ? 1 : 3) * 1000,
    // Quick: 2 s steps keep the smoke run, with its own infrastructure, inside CI's 150 s (issue 21).
    stepMs: value('seconds', quick ? 2 : 10) * 1000,
    connections: value('connections', 32),
    // The services' and B2's pool size: the database ceiling at the same concurrency.
    pgbenchClients: value('pgbench-clients', 10),
    spreadMerchants: 8,
    // Each funding pay-in nets 487,500.00 RUB, about 480 payouts of W3's 1,000.00 plus fee. The hot
    // merchant takes all of W3's second step: about 2,500 payouts a round at 137/s on a quiet
    // 2-core machine (2026-11-29), so two rounds need 11 pay-ins; 20 leave room for a faster one.
    fundingPerSpreadMerchant: quick ? 1 : 3,
    fundingHotMerchant: quick ? 2 : 20,
    historyEvents: value('history-events', quick ? 1_000 : 50_000),
    historySamples: quick ? 3 : 5,
    // With a ledger whose cost grows with history, one hold may take minutes: stop waiting after this.
    historyBudgetMs: value('history-budget-seconds', quick ? 30 : 90) * 1000,
    lagMs: value('lag-seconds', quick ? 3 : 10) * 1000,
    lagChainsPerSecond: value('lag-rate', quick ? 3 : 10),
    backgroundRate: (values as Record<string, unknown>)['background-rate'] === undefined ? null : value('background-rate', 1),
    timeLimitMs: value('time-limit-minutes', quick ? 10 : 40) * 60_000,
    chartShares: [0.25, 0.75],
    // Each chain in flight reads its balance every balancePollMs: faster polling is load of its own, which would slow what it measures.
    visibilityRate: 10,
    balancePollMs: 10,
    fundingPerWithdrawalMerchant: quick ? 1 : 6,
    disputablePool: quick ? 30 : 300,
    cancellablePool: 20,
    cpuProfileDirectory: values['cpu-prof'] === undefined ? null : resolve(values['cpu-prof']),
  };
}

const benchStartedAt = performance.now();
/** Each line with the seconds since the benchmark started: where the smoke run's CI budget goes. */
const log = (line: string) => console.log(`[bench ${((performance.now() - benchStartedAt) / 1000).toFixed(1).padStart(5)} s] ${line}`);
const cleanups: Array<() => Promise<unknown>> = [];

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const startedAt = new Date();
  const limit = setTimeout(() => {
    console.error(`[bench] time limit of ${options.timeLimitMs / 60_000} min reached: stopping`);
    void cleanUp().finally(() => process.exit(2));
  }, options.timeLimitMs);
  const adminUrl = requiredEnv('TEST_PG_ADMIN_URL');
  const ownInfra = process.env['BENCH_OWN_INFRA'] === '1';
  if (ownInfra) await requireDurableCommits(adminUrl);
  else log('using the shared Kafka and PostgreSQL from the environment: figures are for developing the harness, not for comparison');
  const probe = await probeMachine(adminUrl, options);
  log(
    `machine: ${probe['cpus']} × ${probe['cpuModel']}, load average ${probe['loadAverage']}, PostgreSQL fsync=${probe['postgres']['fsync']} synchronous_commit=${probe['postgres']['synchronous_commit']}`,
  );

  log('starting the system (gateway, payments, ledger, disputes, withdrawals, callback dispatcher)');
  const system = await SystemUnderTest.start({
    env: benchedSystemEnvironment(),
    nodeArguments: options.cpuProfileDirectory
      ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDirectory}`, '--require', join(workspaceRoot, 'bench/cpu-profile-preload.cjs')]
      : [],
  });
  cleanups.push(() => system.stop());
  const operator = await createOperator(system, 'Bench operator');
  // Conversions over one operator's limit wait for a second, unrelated operator, as in production.
  const approver = await createOperator(system, 'Bench approver');
  const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  const systemMerchants = await createMerchants(operator, options.spreadMerchants, 'Bench shop');
  const [hotMerchant, historyMerchant, freshMerchant] = await createMerchants(operator, 3, 'Bench special');
  const sink = await new CallbackSink().start();
  cleanups.push(() => sink.stop());
  // Withdrawal and dispute outcomes go to the merchant's default callback URL: the sink.
  const withdrawalMerchants = await createMerchants(operator, 4, 'Bench withdrawals', sink.url);
  const mixedMerchants = await createMerchants(operator, options.spreadMerchants, 'Bench mixed', sink.url);
  // One merchant per chain: its balance was 0, so the first read showing the credit is exact.
  const visibilityMerchants = await createMerchants(operator, Math.max(1, Math.round((options.visibilityRate * options.lagMs) / 1000)), 'Bench visibility');
  const postgresPid = requiredPid(pidListeningOn(Number(new URL(adminUrl).port)), 'PostgreSQL');
  const kafkaPid = requiredPid(
    Number(process.env['BENCH_KAFKA_PID']) || pidListeningOn(Number(requiredEnv('KAFKA_BROKERS').split(',')[0].split(':')[1])),
    'the Kafka broker',
  );
  probe['kafkaJvm'] = jvmFlags(kafkaPid);
  // bench/run.mjs names the project's one Kafka version (deploy/local/kafka/pom.xml).
  probe['kafkaVersion'] = process.env['BENCH_KAFKA_VERSION'] ?? 'unknown';
  const systemContender: MeasuredContender = {
    name: 'system',
    adminUrl,
    usesPostgres: true,
    groups: [
      { name: 'gateway', rootPids: [requiredPid(system.pidOf('gateway'), 'gateway')] },
      { name: 'payments', rootPids: [requiredPid(system.pidOf('payments'), 'payments')] },
      { name: 'ledger', rootPids: [requiredPid(system.pidOf('ledger'), 'ledger')] },
      // Not on the measured paths, but each consumes every order event (disputes' overlay, the
      // dispatcher's callbacks): their CPU is part of what a pay-in costs the system.
      {
        name: 'disputes+withdrawals+callbacks',
        rootPids: (['disputes', 'withdrawals', 'callbacks'] as const).map((service) => requiredPid(system.pidOf(service), service)),
      },
      { name: 'kafka', rootPids: [kafkaPid] },
      { name: 'postgres', rootPids: [postgresPid] },
    ],
  };

  log('starting the yardsticks (B2 Fastify + pg, B1 bare Fastify)');
  const monolith = await startYardstick('monolith', adminUrl, options.spreadMerchants);
  cleanups.push(() => monolith.stop());
  const bare = await startYardstick('bare', adminUrl, options.spreadMerchants);
  cleanups.push(() => bare.stop());
  const yardstickContender = (yardstick: RunningYardstick, name: 'B2' | 'B1'): MeasuredContender => ({
    name,
    adminUrl,
    usesPostgres: yardstick.database !== null,
    groups: [{ name: 'yardstick', rootPids: [yardstick.pid] }, ...(yardstick.database ? [{ name: 'postgres', rootPids: [postgresPid] }] : [])],
  });
  const contenders = { system: systemContender, B2: yardstickContender(monolith, 'B2'), B1: yardstickContender(bare, 'B1') };
  const pgbenchContender: MeasuredContender = { name: 'pgbench', adminUrl, usesPostgres: true, groups: [{ name: 'postgres', rootPids: [postgresPid] }] };

  const ids = new OrderIds();
  const gateway = new LoadClient(system.gatewayUrl, 1024);
  const clients = { system: gateway, B2: new LoadClient(monolith.url, 1024), B1: new LoadClient(bare.url, 1024) };
  const chain = { gateway, agentToken: agent.client.token };

  log(
    `funding the payout merchants with confirmed pay-ins (${options.fundingPerSpreadMerchant} × 500,000.00 RUB each, ${options.fundingHotMerchant} for the hot one), W4's and W5's too`,
  );
  const funded = await fundMerchants(chain, gateway, ids, [
    ...systemMerchants.map((merchant) => ({ merchant, payIns: options.fundingPerSpreadMerchant })),
    { merchant: hotMerchant, payIns: options.fundingHotMerchant },
    ...withdrawalMerchants.map((merchant) => ({ merchant, payIns: options.fundingPerWithdrawalMerchant })),
    ...mixedMerchants.map((merchant) => ({ merchant, payIns: 2 })),
  ]);
  log(
    `funded: ${funded
      .slice(0, systemMerchants.length + 1)
      .map((rub) => formatNumber(rub))
      .join(', ')} RUB available (a payout holds ${PAYOUT_HOLD_RUB} RUB)`,
  );
  // Merchants get USDT the way docs/operations/ledger.md says: an operator's conversion of their RUB.
  const fundedUsdt = new Map<string, number>();
  for (const [index, merchant] of [...withdrawalMerchants, ...mixedMerchants].entries()) {
    const rub = index < withdrawalMerchants.length ? funded[systemMerchants.length + 1 + index] : 250_000;
    fundedUsdt.set(merchant.merchantId, await convertRubToUsdt(operator, approver, gateway, merchant, rub, ids.next('conversion')));
  }
  log(`converted to USDT: ${[...fundedUsdt.values()].map((usdt) => formatNumber(usdt)).join(', ')} USDT (a withdrawal takes 11.00)`);
  const accepted = new AcceptedWithdrawals();
  const mixed = new MixedState(accepted);
  log(`preparing W5: ${options.disputablePool} pay-ins with their agent (for dispute opens), ${options.cancellablePool} to cancel`);
  await prepareMixedPools(gateway, mixedMerchants, ids, sink.url, mixed, { disputable: options.disputablePool, cancellable: options.cancellablePool });
  await disputesKnowAgents(
    system,
    mixed.disputable.map((order) => order.orderId),
  );

  const steps: Array<StepResult & StepExtras> = [];
  const created: Record<'system' | 'B2' | 'B1', CreatedOrder[]> = { system: [], B2: [], B1: [] };
  const insufficientFunds = { insufficientFunds: 0 };
  /** Warm-up, closed loop, open loop at ½ its saturation, then the chart's other shares when asked. */
  const measureWorkload = async (contender: MeasuredContender, workload: string, round: number, send: SendRequest, chartShares: readonly number[] = []) => {
    await runClosedLoop({ connections: options.connections, durationMs: options.warmMs, send, record: () => undefined });
    const closed = await runStep({
      contender,
      workload,
      round,
      mode: 'closed',
      connections: options.connections,
      durationMs: options.stepMs,
      drive: closedLoop(options.connections, options.stepMs, send),
    });
    log(describeStep(closed));
    steps.push(closed);
    for (const loadShare of [TABLE_LOAD_SHARE, ...chartShares]) {
      const rate = Math.max(1, closed.achievedPerSecond * loadShare);
      const open = await runStep({
        contender,
        workload,
        round,
        mode: 'open',
        ratePerSecond: rate,
        loadShare,
        durationMs: options.stepMs,
        drive: openLoop(rate, options.stepMs, send),
      });
      log(describeStep(open));
      steps.push(open);
    }
  };

  for (let round = 1; round <= options.rounds; round += 1) {
    log(`round ${round} of ${options.rounds}: system`);
    await measureWorkload(
      systemContender,
      WORKLOADS.createPayIn,
      round,
      createPayInWorkload(gateway, systemMerchants, ids, created.system),
      options.chartShares,
    );
    await measureWorkload(systemContender, WORKLOADS.status, round, statusWorkload(gateway, created.system, ids));
    await measureWorkload(systemContender, WORKLOADS.payout, round, payoutWorkload(gateway, systemMerchants, ids, insufficientFunds));
    await measureWorkload(systemContender, WORKLOADS.payoutHot, round, payoutWorkload(gateway, [hotMerchant], ids, insufficientFunds));
    await measureWorkload(systemContender, WORKLOADS.withdrawal, round, withdrawalWorkload(gateway, withdrawalMerchants, ids, accepted));
    await measureWorkload(systemContender, WORKLOADS.mixed, round, mixedWorkload(gateway, mixedMerchants, ids, sink.url, mixed), options.chartShares);
    for (const name of ['B2', 'B1'] as const) {
      log(`round ${round} of ${options.rounds}: ${name}`);
      const yardstick = name === 'B2' ? monolith : bare;
      // B1 keeps nothing, so it cannot tell a retry from a duplicate or a known order from an unknown one: it gets new orders and known ids only.
      const stateful = name === 'B2';
      await measureWorkload(
        contenders[name],
        WORKLOADS.createPayIn,
        round,
        createPayInWorkload(clients[name], yardstick.merchants, ids, created[name], stateful),
        name === 'B2' ? options.chartShares : [],
      );
      await measureWorkload(contenders[name], WORKLOADS.status, round, statusWorkload(clients[name], created[name], ids, stateful));
    }
    log(`round ${round} of ${options.rounds}: pgbench (the yardstick's create statement, ${options.pgbenchClients} clients)`);
    await measurePgbench(pgbenchContender, adminUrl, monolith.database as string, round, options, steps);
  }
  if (insufficientFunds.insufficientFunds > 0)
    log(`warning: ${insufficientFunds.insufficientFunds} payouts found the balance spent; fund more for longer runs`);
  if (accepted.insufficientFunds + mixed.payouts.insufficientFunds > 0)
    log(
      `warning: ${accepted.insufficientFunds} withdrawals and ${mixed.payouts.insufficientFunds} W5 payouts found the balance spent; fund more for longer runs`,
    );
  log(mixed.describe());

  const systemW1 = steps
    .filter((step) => step.contender === 'system' && step.workload === WORKLOADS.createPayIn && step.mode === 'closed')
    .map((step) => step.achievedPerSecond);
  const backgroundRate = options.backgroundRate ?? Math.max(1, median(systemW1) / 2);
  log(
    `ledger lag: ${options.lagChainsPerSecond} confirmed pay-ins/s, and agent confirmations at ${options.visibilityRate}/s timed to the balance and the callback, while W1 runs at ${backgroundRate.toFixed(0)} req/s`,
  );
  const background = createPayInWorkload(gateway, systemMerchants, ids, created.system);
  const visibilityRun = measureVisibility({
    gateway,
    agentToken: agent.client.token,
    merchants: visibilityMerchants,
    ids,
    sink,
    chainsPerSecond: options.visibilityRate,
    pollIntervalMs: options.balancePollMs,
    giveUpMs: 30_000,
  });
  const lag = await measureLedgerLag({
    chain,
    merchants: systemMerchants,
    ids,
    ledgerDatabaseUrl: system.databaseUrl('ledger'),
    paymentsDatabaseUrl: system.databaseUrl('payments'),
    chainsPerSecond: options.lagChainsPerSecond,
    durationMs: options.lagMs,
    background: () => runOpenLoop({ ratePerSecond: backgroundRate, durationMs: options.lagMs, send: background, record: () => undefined }),
  });
  log(describeLag(lag));
  const visibility = await visibilityRun;
  log(describeVisibility(visibility));

  log(`history: seeding ${options.historyEvents.toLocaleString('en-US')} ledger events for one merchant through the ledger's append path`);
  const seedStarted = performance.now();
  await seedLedgerHistory(system.databaseUrl('ledger'), historyMerchant.merchantId, 'RUB', options.historyEvents);
  const seedMs = performance.now() - seedStarted;
  await seedLedgerHistory(system.databaseUrl('ledger'), freshMerchant.merchantId, 'RUB', 1);
  log(`seeded in ${(seedMs / 1000).toFixed(1)} s; timing payout holds on the ledger`);
  // A token lives a minute and a run can last longer: the harness's issuer renews it (cached meanwhile).
  const holdsAs = async () => (await system.internalHeaders('ledger', { as: 'payments' })).authorization;
  const fresh = await timeHolds(system.ledgerUrl, holdsAs, freshMerchant.merchantId, 1, ids, 20, 30_000, 60_000);
  const history = await timeHolds(
    system.ledgerUrl,
    holdsAs,
    historyMerchant.merchantId,
    options.historyEvents,
    ids,
    options.historySamples,
    options.historyBudgetMs,
    options.historyBudgetMs,
  );
  const historyRatio = describeHistory(fresh, history);
  log(historyRatio);

  log('checks: every accepted withdrawal debited once (withdrawals list against the ledger balance), the ledger auditor, signed callbacks, expected answers');
  const problems = [
    ...(await checkWithdrawalMoney(gateway, [...withdrawalMerchants, ...mixedMerchants], fundedUsdt, accepted)),
    ...(await assertLedgerAudited(system.databaseUrl('ledger')).then(
      () => [],
      (error: Error) => [error.message],
    )),
    ...(sink.unsigned > 0 ? [`${sink.unsigned} callbacks arrived without a signature`] : []),
    ...smokeProblems(steps),
    ...(visibility.confirmFailures > 0 ? [`${visibility.confirmFailures} agent confirmations of the latency chains failed`] : []),
    ...(visibility.balance.seen < visibility.balance.calls
      ? [`${visibility.balance.calls - visibility.balance.seen} confirmed pay-ins never showed in the balance within 30 s`]
      : []),
    ...(visibility.callback.seen < visibility.callback.calls
      ? [`${visibility.callback.calls - visibility.callback.seen} confirmed pay-ins had no payment.succeeded callback within 30 s`]
      : []),
  ];
  log(problems.length === 0 ? 'checks passed' : `checks FAILED:\n  ${problems.join('\n  ')}`);
  log(sink.describe());

  const finishedAt = new Date();
  const commit = gitCommit();
  const command = `npm run bench${options.quick ? ' -- --quick' : ''}`;
  const resultsDirectory = join(workspaceRoot, 'bench/results');
  mkdirSync(resultsDirectory, { recursive: true });
  const base = options.quick || !ownInfra ? 'quick-latest' : 'latest';
  const charts = [
    {
      file: `${base}-w1-latency.svg`,
      title: 'W1 create pay-in: latency vs offered load',
      series: (['system', 'B2'] as const).map((name) => ({ label: name, points: chartPoints(steps, WORKLOADS.createPayIn, name) })),
    },
    // B2 serves endpoints 1 and 3 only: W5 is the system's alone.
    {
      file: `${base}-w5-latency.svg`,
      title: 'W5 mixed: latency vs offered load (system only)',
      series: [{ label: 'system', points: chartPoints(steps, WORKLOADS.mixed, 'system') }],
    },
  ];
  for (const chart of charts) writeFileSync(join(resultsDirectory, chart.file), latencyChartSvg(chart));
  const extras = { visibility, mixed: mixed.describe(), callbacks: sink.describe(), problems, charts: charts.map((chart) => chart.file) };
  const markdown = renderMarkdown({
    startedAt,
    finishedAt,
    commit,
    command,
    probe,
    steps,
    lag,
    backgroundRate,
    historyRatio,
    fresh,
    history,
    seedMs,
    options,
    ownInfra,
    ...extras,
  });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const jsonFile = join(resultsDirectory, `${stamp}${options.quick ? '-quick' : ''}.json`);
  writeFileSync(
    jsonFile,
    JSON.stringify(
      {
        startedAt,
        finishedAt,
        commit,
        command,
        ownInfra,
        options,
        probe,
        steps,
        lag,
        backgroundRate,
        history: { fresh, history, seedMs, summary: historyRatio },
        ...extras,
      },
      null,
      2,
    ),
  );
  const markdownFile = join(resultsDirectory, `${base}.md`);
  writeFileSync(markdownFile, markdown);
  console.log(`\n${markdown}`);
  log(`results: ${jsonFile}, ${markdownFile} and the charts ${charts.map((chart) => chart.file).join(', ')}`);
  clearTimeout(limit);
  for (const client of Object.values(clients)) client.close();
  await cleanUp();
  // A smoke run (CI) fails only when the benchmark broke: an answer it did not expect, a check on the money, a crash; never on a figure.
  if (problems.length > 0) process.exitCode = 1;
}

/** The disputes service decides on its own projection of payments' events: waits until it has every prepared pay-in with its agent. */
async function disputesKnowAgents(system: SystemUnderTest, orderIds: readonly string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [row] = await system.query<{ known: number }>(
      'disputes',
      'SELECT count(*)::int AS known FROM dispute_orders WHERE order_id = ANY($1) AND agent_id IS NOT NULL',
      [orderIds],
    );
    if (row.known === orderIds.length) return;
    if (Date.now() > deadline) throw new Error(`the disputes service knows the agent of ${row.known} of W5's ${orderIds.length} prepared pay-ins after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) await (cleanups.pop() as () => Promise<unknown>)().catch((error) => console.error(`[bench] cleanup: ${error}`));
}

async function measurePgbench(
  contender: MeasuredContender,
  adminUrl: string,
  database: string,
  round: number,
  options: Options,
  steps: Array<StepResult & StepExtras>,
): Promise<void> {
  const seconds = Math.max(1, Math.round(options.stepMs / 1000));
  const closed = await runStep({
    contender,
    workload: WORKLOADS.createPayIn,
    round,
    mode: 'closed',
    connections: options.pgbenchClients,
    durationMs: seconds * 1000,
    drive: pgbenchDrive(adminUrl, database, { clients: options.pgbenchClients, durationSeconds: seconds }),
  });
  log(describeStep(closed));
  steps.push(closed);
  const rate = Math.max(1, closed.achievedPerSecond / 2);
  const open = await runStep({
    contender,
    workload: WORKLOADS.createPayIn,
    round,
    mode: 'open',
    ratePerSecond: rate,
    durationMs: seconds * 1000,
    drive: pgbenchDrive(adminUrl, database, { clients: options.pgbenchClients, durationSeconds: seconds, ratePerSecond: rate }),
  });
  log(describeStep(open));
  steps.push(open);
}

async function probeMachine(adminUrl: string, options: Options): Promise<Record<string, any>> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  const postgres: Record<string, string> = {};
  try {
    postgres['version'] = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
    for (const setting of [
      'fsync',
      'synchronous_commit',
      'full_page_writes',
      'shared_buffers',
      'wal_level',
      'max_connections',
      'commit_delay',
      'checkpoint_timeout',
      'max_wal_size',
    ]) {
      postgres[setting] = (await client.query(`SHOW ${setting}`)).rows[0][setting];
    }
  } finally {
    await client.end();
  }
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    freeMemoryGiB: +(freemem() / 2 ** 30).toFixed(1),
    kernel: release(),
    node: process.version,
    loadAverage: loadavg()
      .map((value) => value.toFixed(2))
      .join(' '),
    postgres,
    fdatasync: options.quick ? 'not measured (--quick)' : fdatasyncLatency(),
  };
}

/** pg_test_fsync's fdatasync figure: the serial commit ceiling of this disk. */
function fdatasyncLatency(): string {
  try {
    const directory = join(workspaceRoot, '.local');
    mkdirSync(directory, { recursive: true });
    const output = execFileSync('/usr/lib/postgresql/15/bin/pg_test_fsync', ['-s', '1', '-f', join(directory, 'bench-pg_test_fsync.tmp')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const line = output.split('\n').find((text) => text.trim().startsWith('fdatasync'));
    return line ? line.trim().replace(/\s+/g, ' ') : 'unknown';
  } catch (error) {
    return `not measured: ${(error as Error).message.split('\n')[0]}`;
  }
}

function jvmFlags(pid: number): string {
  try {
    return execFileSync('cat', [`/proc/${pid}/cmdline`], { encoding: 'utf8' })
      .split('\0')
      .filter((argument) => argument.startsWith('-X'))
      .join(' ');
  } catch {
    return 'unknown';
  }
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: workspaceRoot, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs', 'bench/src', 'deploy'], { cwd: workspaceRoot, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function describeLag(lag: LagResult): string {
  const timing = lag.lagMs
    ? `pay-in succeeded in payments → credited by the ledger p50 ${formatNumber(lag.lagMs.p50)} ms, p99 ${formatNumber(lag.lagMs.p99)} ms, max ${formatNumber(lag.lagMs.max)} ms`
    : 'no credits seen';
  return `ledger lag: ${lag.confirmed} pay-ins confirmed at ${lag.chainsPerSecond}/s, ${lag.credited} credited; ${timing}; backlog of confirmed-not-credited max ${lag.maxBacklog}, mean ${formatNumber(lag.meanBacklog)} (sampled every 500 ms); drained ${lag.drainMs} ms after the load`;
}

function describeHistory(fresh: HoldTimings, history: HoldTimings): string {
  const freshMedian = median(fresh.samplesMs);
  const historyMedian = median(history.samplesMs);
  const side = (timings: HoldTimings, value: number) =>
    `${timings.events.toLocaleString('en-US')} events: ${timings.samplesMs.length > 0 ? `median ${formatNumber(value)} ms over ${timings.samplesMs.length} holds` : 'no hold completed'}${timings.failures.length > 0 ? ` (${timings.failures.join('; ')})` : ''}`;
  const ratioText =
    history.samplesMs.length > 0 && freshMedian > 0
      ? `ratio ${formatNumber(historyMedian / freshMedian)}×`
      : `ratio > ${formatNumber(Number(/after (\d+)/.exec(history.failures[0] ?? '')?.[1] ?? 0) / (freshMedian || 1))}× (no hold with history completed)`;
  return `payout hold on the ledger: ${side(fresh, freshMedian)}; ${side(history, historyMedian)}; ${ratioText}`;
}

function renderMarkdown(run: {
  startedAt: Date;
  finishedAt: Date;
  commit: string;
  command: string;
  probe: Record<string, any>;
  steps: Array<StepResult & StepExtras>;
  lag: LagResult;
  backgroundRate: number;
  historyRatio: string;
  fresh: HoldTimings;
  history: HoldTimings;
  seedMs: number;
  options: Options;
  ownInfra: boolean;
  visibility: VisibilityResult;
  mixed: string;
  callbacks: string;
  problems: string[];
  charts: string[];
}): string {
  const minutes = ((run.finishedAt.getTime() - run.startedAt.getTime()) / 60_000).toFixed(1);
  const machineLoad = run.steps.map((step) => step.machineCpuMs / step.durationMs);
  const rss = systemRssMb(run.steps);
  return [
    `## Benchmark ${run.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${run.commit}`,
    '',
    `\`${run.command}\` (${minutes} min). ${run.probe['cpus']} × ${run.probe['cpuModel']}, ${run.probe['memoryGiB']} GiB, Linux ${run.probe['kernel']}, Node ${run.probe['node']}, load average at start ${run.probe['loadAverage']}. ` +
      `PostgreSQL ${run.probe['postgres']['version']} (${run.ownInfra ? 'private cluster' : 'SHARED server'}): fsync=${run.probe['postgres']['fsync']}, synchronous_commit=${run.probe['postgres']['synchronous_commit']}, shared_buffers=${run.probe['postgres']['shared_buffers']}; ${run.probe['fdatasync']}. ` +
      `Kafka ${run.probe['kafkaVersion']}, one broker, RF=1 (${run.probe['kafkaJvm']}). Services with docker-compose.yml's heap limits and malloc arenas (NODE_OPTIONS, MALLOC_ARENA_MAX). ${run.options.rounds} round(s), interleaved system → B2 → B1 → pgbench; per workload ${run.options.warmMs / 1000} s warm-up, ${run.options.stepMs / 1000} s closed loop (${run.options.connections} connections; pgbench ${run.options.pgbenchClients} clients), ${run.options.stepMs / 1000} s open loop at half of that contender's own saturation. ` +
      `Whole machine busy ${formatNumber(Math.min(...machineLoad))}–${formatNumber(Math.max(...machineLoad))} cores during the steps (other work on the machine shows here).`,
    '',
    markdownTable(run.steps),
    '',
    'CPU-ms per request by process group (closed loop; postgres = the postmaster and all its backends, whoever they serve) and peak RSS:',
    '',
    cpuBreakdownTable(run.steps),
    '',
    `- History: ${run.historyRatio}. The ${run.history.events.toLocaleString('en-US')} events (pay-in credits) were seeded in ${(run.seedMs / 1000).toFixed(1)} s through the ledger's command handling (handleLedgerCommand), 1,000 commands per transaction; the ledger's auditor agreed afterwards.`,
    `- ${describeLag(run.lag)}.`,
    `- End to end (issue 21): ${describeVisibility(run.visibility)}; each from the confirmation's intended send time in an open loop, run beside the ledger-lag chains and their W1 background at ${run.backgroundRate.toFixed(0)} req/s (${run.options.backgroundRate === null ? "half of this run's W1 saturation" : 'given with --background-rate'}), one fresh merchant per confirmation.`,
    `- W4 creates 10.00 USDT-TRC20 withdrawals (11.00 frozen with the network fee) over 4 merchants funded by an operator's RUB → USDT conversion. W5 draws each request from 40 % status, 10 % balances, 5 % pay-in list, 25 % pay-in, 10 % payout, 5 % withdrawal, 3 % cancel, 2 % dispute open over 8 merchants; it runs on the system only, since B2 serves endpoints 1 and 3 alone. ${run.mixed}.`,
    `- ${run.callbacks[0].toUpperCase()}${run.callbacks.slice(1)} (the generator's sink; pay-in outcomes of the latency chains and W5's, withdrawal and dispute outcomes).`,
    `- Latency versus offered load (open loop at ${[TABLE_LOAD_SHARE, ...run.options.chartShares]
      .sort()
      .map((share) => `${share * 100} %`)
      .join(', ')} of each contender's saturation; p50 solid, p99 dashed): ${run.charts.map((file) => `[${file}](${file})`).join(', ')}.`,
    '',
    ...run.charts.map((file) => `![${file}](${file})`),
    '',
    run.problems.length === 0
      ? "- Checks passed: every answer as the workload expected; each accepted withdrawal listed and debited once from the ledger's USDT; the ledger auditor agrees; every callback signed."
      : `- **Checks FAILED**: ${run.problems.join('; ')}.`,
    `- Peak RSS of the six services plus Kafka over the system's steps: ${rss.together} MB together at one instant (sampled once a second); each process group's own peak, summed: ${rss.groupPeaks} MB.`,
    "- B2 writes its outbox row but runs no relay; B1 checks signature and body, then answers without a database; pgbench runs B2's create statement (its client CPU is not counted, like the generator's).",
    '',
  ].join('\n');
}

/** The issue's memory measure: every service and the broker, PostgreSQL left out. */
function systemRssMb(steps: ReadonlyArray<StepResult>): { together: number; groupPeaks: number } {
  const systemSteps = steps.filter((step) => step.contender === 'system');
  const groups = [...new Set(systemSteps.flatMap((step) => Object.keys(step.peakRssBytes)))].filter((group) => group !== 'postgres');
  const peaks = groups.map((group) => Math.max(0, ...systemSteps.map((step) => step.peakRssBytes[group] ?? 0)));
  const together = Math.max(0, ...systemSteps.map((step) => step.peakRssWithoutPostgresBytes ?? 0));
  return { together: Math.round(together / 1_048_576), groupPeaks: Math.round(peaks.reduce((sum, value) => sum + value, 0) / 1_048_576) };
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the benchmark with npm run bench`);
  return value;
}

function requiredPid(pid: number | null | undefined, what: string): number {
  if (!pid || !readProcStat(pid)) throw new Error(`cannot find the process of ${what}`);
  return pid;
}

main().catch(async (error) => {
  console.error(`[bench] failed: ${error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : error}`);
  await cleanUp();
  process.exit(1);
});
