/**
 * The chaos run (docs/operations/chaos.md): the system with replicas on the run's private
 * infrastructure, the mixed load for the whole run, the faults one after another (each
 * injected, held, healed, and its recovery measured), then the drain, the settle reads, the
 * reconciliation, the money audit, the verdict and the report. The loop runs any ChaosFault:
 * it never asks what kind a fault is.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDITED_DATABASES, auditDatabases, formatAudit, parseAcknowledgements, type AuditedDatabase, type AuditReport } from '@mp/audit';
import { CATALOG_SERVICE_NAMES, SystemUnderTest, workspaceRoot, type InstanceName, type ServiceName } from '@mp/shared-testing';
import { DEFAULT_RECOVERY_BOUND_MS, type ChaosContext, type ChaosFault, type ChaosInfra, type ServiceEnvironment } from './faults';
import type { CallbackSink } from './callback-sink';
import { MixedLoad, sleep } from './load';
import {
  acknowledgedFileLines,
  callbacksNotReceived,
  countOutcomes,
  operationsStuckAtTheEnd,
  isForbiddenServerError,
  needsSettling,
  reconcile,
  recoveryTime,
  type DispatcherDelivery,
  type HeldObject,
  type RequestOutcome,
} from './outcomes';
import { renderMarkdown, verdictOf, type ChaosReport, type FaultResult } from './report';
import { OutcomeLog, type RunMerchant } from './requests';

export interface ChaosOptions {
  mode: 'quick' | 'full';
  /** Operations started per second (a flow step may send up to three requests). */
  rate: number;
  merchants: number;
  /** Load before the first fault, and between a fault's recovery and the next injection. */
  gapMs: number;
  /** How long the load must go on without an outage-like failure for a recovery to count. */
  stableMs: number;
  /** Quiet time after the load stops, before the settle reads and the audit. */
  drainMs: number;
  /** Replicas started beside the first instance of each service. */
  replicas: InstanceName[];
  /** Where the JSON report and the markdown summary go. */
  reportDirectory: string;
  /** The whole run's bound: the run fails rather than exceed it. */
  timeLimitMs: number;
}

/**
 * The run's service settings: callbacks to the run's sink on loopback, retried soon enough (and
 * the circuit to it closed again soon enough) that those the sink's faults held back arrive
 * before the audit, yet over more than the longest sink fault lasts; withdrawals sent quickly.
 */
const RUN_ENVIRONMENT: ServiceEnvironment = {
  gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true' },
  callbacks: { CALLBACK_RETRY_SCHEDULE: '0s,1s,2s,4s,8s,15s,30s,30s,30s', CALLBACK_CIRCUIT_COOLDOWN_MS: '1000' },
  withdrawals: { WITHDRAWALS_SIMULATOR_DELAY_MS: '300', WITHDRAWALS_SEND_INTERVAL_MS: '200' },
};
/** Most operations in flight at once: past it the load waits, instead of piling up thousands of requests during an outage. */
const MAX_IN_FLIGHT = 120;
/** How long the settle reads may take in all: a few hundred reads on a healthy system take seconds. */
const SETTLE_BUDGET_MS = { quick: 30_000, full: 120_000 } as const;
/** How long the run waits for the load's last requests once it stops (they time out at 15 s). */
const IN_FLIGHT_GRACE_MS = 20_000;

type Say = (line: string) => void;

export async function runChaos(
  options: ChaosOptions,
  infra: ChaosInfra,
  faults: ChaosFault[],
  sink: CallbackSink,
  abort: AbortSignal,
  say: Say,
): Promise<number> {
  const startedAtMs = Date.now();
  const stamp = new Date(startedAtMs).toISOString().replace(/[:.]/g, '-');
  const runDirectory = join(workspaceRoot, '.local/chaos', stamp);
  mkdirSync(runDirectory, { recursive: true });
  const files = { outcomes: join(runDirectory, 'outcomes.jsonl'), acknowledged: join(runDirectory, 'acknowledged.jsonl') };
  const log = new OutcomeLog(files.outcomes, startedAtMs);
  const env: ServiceEnvironment = structuredClone(RUN_ENVIRONMENT);
  const instances: InstanceName[] = [...CATALOG_SERVICE_NAMES, ...options.replicas];
  let context: ChaosContext | null = null;
  const contextOf = (system: SystemUnderTest): ChaosContext => {
    const databases = Object.fromEntries(CATALOG_SERVICE_NAMES.map((name) => [name, new URL(system.databaseUrl(name)).pathname.slice(1)])) as Record<
      ServiceName,
      string
    >;
    context ??= { system, infra, databases, env, instances, log: (line) => say(`  ${line}`) };
    return context;
  };
  let system: SystemUnderTest | null = null;
  let loadRunning = false;
  const timeLimit = setTimeout(() => say(`the run passed its ${options.timeLimitMs / 1000} s limit: stopping`), options.timeLimitMs);
  const overTime = () => Date.now() - startedAtMs > options.timeLimitMs;
  try {
    say(`starting the system: ${instances.join(', ')}`);
    system = await SystemUnderTest.start({
      env,
      beforeServices: async (started) => Promise.all(faults.map((fault) => fault.prepare?.(contextOf(started)))).then(() => undefined),
    });
    const running = system;
    const chaos = contextOf(running);
    await Promise.all(options.replicas.map((replica) => running.startService(replica, replica.startsWith('gateway') ? { GATEWAY_INSTANCE_ID: replica } : {})));
    say(`system ready in ${seconds(Date.now() - startedAtMs)}; preparing ${options.merchants} merchants, an operator and an agent`);
    const mixed = await MixedLoad.prepare(running, log, options.merchants, sink);

    loadRunning = true;
    const loadStartedMs = log.now();
    const generator = (async () => {
      const intervalMs = 1000 / options.rate;
      let next = Date.now();
      while (loadRunning) {
        if (log.inFlight < MAX_IN_FLIGHT) void mixed.step(Math.random(), log.now()).catch((error: unknown) => say(`load step failed: ${String(error)}`));
        next += intervalMs;
        await sleep(Math.max(0, next - Date.now()));
      }
    })();
    say(`load running at ${options.rate} operations/s`);
    await sleep(options.gapMs);

    const results: FaultResult[] = [];
    for (const fault of faults) {
      if (abort.aborted || overTime()) break;
      results.push(await runFault(fault, chaos, log, options, abort, say));
      await sleep(options.gapMs);
    }
    loadRunning = false;
    await generator;
    const loadSeconds = (log.now() - loadStartedMs) / 1000;
    if (abort.aborted) {
      say('interrupted: stopping without a verdict');
      return 130;
    }
    const graceEnd = Date.now() + IN_FLIGHT_GRACE_MS;
    while (log.inFlight > 0 && Date.now() < graceEnd) await sleep(100);
    say(`load stopped after ${loadSeconds.toFixed(0)} s and ${log.outcomes.length} requests; draining for ${seconds(options.drainMs)}`);
    await sleep(options.drainMs);

    const outcomes = log.outcomes;
    const settled = await settle(outcomes, mixed.merchants, Date.now() + SETTLE_BUDGET_MS[options.mode], abort);
    say(`settled ${settled.needed} timed-out or 5xx requests with a status read`);
    const held = await heldObjects(
      running,
      mixed.merchants.map((merchant) => merchant.merchantId),
    );
    const reconciliation = reconcile(outcomes, held);
    writeFileSync(files.acknowledged, `${acknowledgedFileLines(outcomes).join('\n')}\n`);
    const audit = await auditSettled(running, files.acknowledged, say);
    const merchantIds = mixed.merchants.map((merchant) => merchant.merchantId);
    const sinkCounts = sink.counts();
    const notReceived = callbacksNotReceived(await dispatcherDeliveries(running, merchantIds), new Set(sink.acknowledgedIds()));

    const counts = countOutcomes(outcomes);
    const report: ChaosReport = {
      mode: options.mode,
      startedAt: new Date(startedAtMs).toISOString(),
      wallSeconds: (Date.now() - startedAtMs) / 1000,
      loadSeconds,
      merchants: mixed.merchants.length,
      instances,
      requestsSent: outcomes.length,
      counts: counts.total,
      countsByOperation: counts.byOperation,
      serviceUnavailable: outcomes.filter((outcome) => outcome.status === 503 && outcome.retryAfter).length,
      forbiddenServerErrors: outcomes
        .filter(isForbiddenServerError)
        .map((outcome) => ({ operation: outcome.operation, status: outcome.status, code: outcome.code, orderId: outcome.orderId })),
      settled,
      ...reconciliation,
      stuckOperations: operationsStuckAtTheEnd(outcomes),
      faults: results,
      callbacks: { received: sinkCounts.deliveries, acknowledged: sinkCounts.acknowledged, unverified: sinkCounts.unverified, notReceived },
      audit: { ok: audit.ok, failedChecks: audit.checks.filter((check) => check.status === 'failed').map((check) => check.name), text: formatAudit(audit) },
      files,
    };
    const verdict = verdictOf(report);
    if (overTime()) verdict.reasons.push(`the run took longer than its ${options.timeLimitMs / 1000} s limit`);
    verdict.passed = verdict.reasons.length === 0;
    const markdown = renderMarkdown(report, verdict);
    mkdirSync(options.reportDirectory, { recursive: true });
    const base = join(options.reportDirectory, `chaos-${stamp}`);
    writeFileSync(`${base}.json`, `${JSON.stringify({ ...report, verdict }, null, 2)}\n`);
    writeFileSync(`${base}.md`, markdown);
    console.log(`\n${markdown}`);
    say(`report: ${base}.json and ${base}.md; outcomes: ${files.outcomes}`);
    return verdict.passed ? 0 : 1;
  } finally {
    clearTimeout(timeLimit);
    loadRunning = false;
    const finalContext = context as ChaosContext | null;
    if (finalContext) await Promise.allSettled(faults.map((fault) => fault.dispose?.(finalContext)));
    await log.close();
    await system?.stop();
  }
}

/**
 * Instances that exited although no fault stopped them (checked after a heal): recorded, with
 * the last line they wrote, and started again, as an orchestrator would, so the run goes on.
 */
async function reviveCrashed(context: ChaosContext, crashed: string[], say: Say): Promise<void> {
  for (const instance of context.instances) {
    if (context.system.isRunning(instance)) continue;
    const lastLines = context.system
      .outputOf(instance)
      .filter((line) => /error|exception|exit/i.test(line))
      .slice(-1);
    const entry = `${instance}${lastLines[0] ? ` (${lastLines[0].slice(0, 200)})` : ''}`;
    crashed.push(entry);
    say(`  CRASHED: ${entry}; starting it again`);
    await context.system
      .startService(instance, instance.startsWith('gateway-') ? { GATEWAY_INSTANCE_ID: instance } : {})
      .catch((error: unknown) => say(`  could not start ${instance} again: ${messageOf(error)}`));
  }
}

/** Injects, holds, heals, then waits for the load to succeed again (outcomes.ts recoveryTime) within the fault's bound. */
async function runFault(fault: ChaosFault, context: ChaosContext, log: OutcomeLog, options: ChaosOptions, abort: AbortSignal, say: Say): Promise<FaultResult> {
  const boundMs = fault.recoveryBoundMs ?? DEFAULT_RECOVERY_BOUND_MS;
  const recoveryFrom = fault.recoveryFrom ?? 'heal';
  const result: FaultResult = { kind: fault.kind, name: fault.name, injectedAtMs: log.now(), healedAtMs: null, recoveryMs: null, recoveryFrom, boundMs };
  say(`fault: ${fault.name}`);
  try {
    await fault.inject(context);
    await sleep(fault.holdMs ?? 0);
  } catch (error) {
    result.error = `inject failed: ${messageOf(error)}`;
  }
  try {
    await fault.heal(context);
    result.healedAtMs = log.now();
  } catch (error) {
    result.error = `${result.error ? `${result.error}; ` : ''}heal failed: ${messageOf(error)}`;
    return result;
  }
  const fromMs = recoveryFrom === 'inject' ? result.injectedAtMs : (result.healedAtMs ?? log.now());
  const crashed: string[] = [];
  while (log.now() - fromMs <= boundMs + options.stableMs && !abort.aborted) {
    await reviveCrashed(context, crashed, say);
    const recovery = recoveryTime(log.outcomes, fromMs, options.stableMs, log.now());
    if (recovery !== null) {
      result.recoveryMs = recovery <= boundMs ? recovery : null;
      break;
    }
    await sleep(250);
  }
  await reviveCrashed(context, crashed, say);
  if (crashed.length > 0) result.crashed = crashed;
  say(
    `  healed in ${seconds((result.healedAtMs ?? 0) - result.injectedAtMs)}, recovered ${result.recoveryMs === null ? 'NOT within the bound' : `in ${seconds(result.recoveryMs)}`} (from the ${recoveryFrom})`,
  );
  return result;
}

/** A status read after the drain for every create or order action that timed out or got a 5xx: did it happen? */
async function settle(outcomes: RequestOutcome[], merchants: RunMerchant[], deadlineMs: number, abort: AbortSignal): Promise<ChaosReport['settled']> {
  const byId = new Map(merchants.map((merchant) => [merchant.merchantId, merchant]));
  const tally = { needed: 0, happened: 0, notHappened: 0, unknown: 0 };
  for (const outcome of outcomes.filter(needsSettling)) {
    tally.needed += 1;
    const merchant = byId.get(outcome.merchantId);
    // Past the budget (a system that no longer answers) the rest stay unknown, which fails the run.
    const canRead = merchant && outcome.orderId && Date.now() < deadlineMs && !abort.aborted;
    outcome.settled = canRead ? await settleOne(outcome, merchant, outcome.orderId as string) : 'unknown';
    if (outcome.settled === 'happened') tally.happened += 1;
    else if (outcome.settled === 'not-happened') tally.notHappened += 1;
    else tally.unknown += 1;
  }
  return tally;
}

/** What each operation leaves behind when it happened, as the status read shows it. */
const STATUS_AFTER: Partial<Record<RequestOutcome['operation'], string>> = {
  'agent-confirm': 'SUCCEEDED',
  'agent-decline': 'FAILED',
  cancel: 'CANCELLED',
  'payout-complete': 'SUCCEEDED',
};

async function settleOne(outcome: RequestOutcome, merchant: RunMerchant, orderId: string): Promise<RequestOutcome['settled']> {
  const path =
    outcome.creates === 'withdrawal' ? `/v2/merchant/withdrawals/${encodeURIComponent(orderId)}` : `/v2/payments/status/${encodeURIComponent(orderId)}`;
  const read = await statusRead(merchant, path);
  if (read === null) return 'unknown';
  if (outcome.creates) return read.status === 200 ? 'happened' : read.status === 404 ? 'not-happened' : 'unknown';
  const expected = STATUS_AFTER[outcome.operation];
  if (!expected || read.status !== 200) return 'unknown';
  return read.body?.status === expected ? 'happened' : 'not-happened';
}

/** A read after the drain: retried a few times, since it is the last word on what happened. */
async function statusRead(merchant: RunMerchant, path: string): Promise<{ status: number; body: { status?: string } | undefined } | null> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const prepared = merchant.sdk.prepare('GET', path);
      const response = await fetch(prepared.url, { headers: prepared.headers, signal: AbortSignal.timeout(10_000) });
      if (response.status < 500)
        return { status: response.status, body: response.status === 200 ? ((await response.json()) as { status?: string }) : undefined };
    } catch {
      // no answer: try again
    }
    await sleep(1_000);
  }
  return null;
}

/** What the platform holds for the run's merchants: creations per order and withdrawal, and the ledger's holds (debits) per object. */
async function heldObjects(system: SystemUnderTest, merchantIds: string[]): Promise<HeldObject[]> {
  const creations = async (service: 'payments' | 'withdrawals', types: string[]) =>
    system.query<{ merchant_id: string; order_id: string; creations: string }>(
      service,
      `SELECT envelope #>> '{data,merchantId}' AS merchant_id, envelope #>> '{data,orderId}' AS order_id, count(*)::text AS creations
         FROM event_store WHERE event_type = ANY($1::text[]) AND envelope #>> '{data,merchantId}' = ANY($2::text[]) GROUP BY 1, 2`,
      [types, merchantIds],
    );
  const holds = await system.query<{ merchant_id: string; reference_kind: string; reference_id: string; holds: string }>(
    'ledger',
    `SELECT merchant_id, reference_kind, reference_id, count(*)::text AS holds FROM ledger_holds WHERE status <> 'voided' AND merchant_id = ANY($1::text[]) GROUP BY 1, 2, 3`,
    [merchantIds],
  );
  // A hold names its object by stream id (`withdrawal:<merchant>:<order_id>`) or by order id.
  const holdsOf = (kind: 'payment_order' | 'withdrawal', merchantId: string, orderId: string) =>
    holds
      .filter(
        (hold) =>
          hold.reference_kind === kind &&
          hold.merchant_id === merchantId &&
          (hold.reference_id === orderId || hold.reference_id.endsWith(`:${merchantId}:${orderId}`)),
      )
      .reduce((sum, hold) => sum + Number(hold.holds), 0);
  const objects = async (kind: 'payment' | 'withdrawal', service: 'payments' | 'withdrawals', types: string[]): Promise<HeldObject[]> =>
    (await creations(service, types)).map((row) => ({
      kind,
      merchantId: row.merchant_id,
      orderId: row.order_id,
      creations: Number(row.creations),
      debits: holdsOf(kind === 'payment' ? 'payment_order' : 'withdrawal', row.merchant_id, row.order_id),
    }));
  return [
    ...(await objects('payment', 'payments', ['IncomingPaymentCreated', 'OutgoingPaymentCreated'])),
    ...(await objects('withdrawal', 'withdrawals', ['WithdrawalRequested'])),
  ];
}

/** The dispatcher's record of the run's merchants' callbacks, to hold against the sink's. */
async function dispatcherDeliveries(system: SystemUnderTest, merchantIds: string[]): Promise<DispatcherDelivery[]> {
  return system.query<DispatcherDelivery>(
    'callbacks',
    `SELECT delivery_id AS "deliveryId", status, merchant_id AS "merchantId", subject_kind AS "subjectKind", subject_id AS "subjectId", callback_type AS "callbackType"
       FROM callback_deliveries WHERE merchant_id = ANY($1::text[])`,
    [merchantIds],
  );
}

/**
 * The audit once the system is quiet. Callback deliveries trail their objects by a poll
 * interval, so a failed audit is taken again twice, 5 s apart: a real violation stays.
 */
async function auditSettled(system: SystemUnderTest, acknowledgedFile: string, say: Say): Promise<AuditReport> {
  let report = await auditRun(system, acknowledgedFile);
  for (let attempt = 1; attempt < 3 && !report.ok; attempt += 1) {
    say(`the audit found violations; taking it again in 5 s (attempt ${attempt + 1} of 3)`);
    await sleep(5_000);
    report = await auditRun(system, acknowledgedFile);
  }
  return report;
}

/** `npm run audit`'s checks (libs/audit) over the run's databases, read-only, with the run's acknowledgements. */
async function auditRun(system: SystemUnderTest, acknowledgedFile: string): Promise<AuditReport> {
  const acknowledgements = parseAcknowledgements(readFileSync(acknowledgedFile, 'utf8'), acknowledgedFile);
  const urls = Object.fromEntries(AUDITED_DATABASES.map((name) => [name, system.databaseUrl(name)])) as Record<AuditedDatabase, string>;
  return auditDatabases(urls, { acknowledgements, applicationName: 'chaos-audit' });
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const messageOf = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0] : String(error));
