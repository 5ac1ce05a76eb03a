/**
 * The chaos run's report: the figures (JSON, reports/chaos-<timestamp>.json), the verdict, and
 * the markdown summary printed at the end and written next to it. Pure; report.spec.ts.
 */
import type { OutcomeClass } from './outcomes';

export interface FaultResult {
  kind: string;
  name: string;
  /** ms since the run started. */
  injectedAtMs: number;
  healedAtMs: number | null;
  /** ms from the injection or the heal (recoveryFrom) until the load succeeded again; null: it did not within the bound. */
  recoveryMs: number | null;
  recoveryFrom: 'inject' | 'heal';
  boundMs: number;
  /** Why inject or heal failed, when one did. */
  error?: string;
  /** Instances found exited after the heal that the fault did not stop itself (restarted by the run, as an orchestrator would): each one fails the run. */
  crashed?: string[];
}

export interface ChaosReport {
  mode: 'quick' | 'full';
  startedAt: string;
  wallSeconds: number;
  loadSeconds: number;
  merchants: number;
  instances: string[];
  requestsSent: number;
  counts: Record<OutcomeClass, number>;
  countsByOperation: Record<string, Record<OutcomeClass, number>>;
  /** 503s with Retry-After (allowed during an outage, counted) and every other 5xx (never allowed). */
  serviceUnavailable: number;
  forbiddenServerErrors: Array<{ operation: string; status: number; code?: string; orderId?: string }>;
  settled: { needed: number; happened: number; notHappened: number; unknown: number };
  lost: string[];
  duplicated: string[];
  phantom: string[];
  undetermined: string[];
  /** Operations whose last requests all failed like an outage (outcomes.ts operationsStuckAtTheEnd). */
  stuckOperations: string[];
  faults: FaultResult[];
  /**
   * The run's callback sink: verified deliveries (by webhook-id) and those acknowledged, callbacks
   * whose signature failed, and what the dispatcher's record shows the sink should have and does not.
   */
  callbacks: { received: number; acknowledged: number; unverified: number; notReceived: string[] };
  audit: { ok: boolean; failedChecks: string[]; text: string };
  /** Files of the run: the outcomes (JSON lines) and the auditor's acknowledgement record. */
  files: { outcomes: string; acknowledged: string };
}

export interface Verdict {
  passed: boolean;
  reasons: string[];
}

/** Exit 0 only when every one of these holds (docs/operations/chaos.md, "The verdict"). */
export function verdictOf(report: ChaosReport): Verdict {
  const reasons: string[] = [];
  const none = (items: string[], what: string) =>
    items.length > 0 && reasons.push(`${items.length} ${what}: ${items.slice(0, 5).join(', ')}${items.length > 5 ? ', …' : ''}`);
  none(report.lost, 'lost');
  none(report.duplicated, 'duplicated');
  none(report.phantom, 'phantom');
  none(report.undetermined, 'requests whose outcome the settle read could not tell');
  none(report.stuckOperations, 'operations that never got through again');
  if (report.forbiddenServerErrors.length > 0)
    reasons.push(
      `${report.forbiddenServerErrors.length} server errors other than 503 with Retry-After (first: ${JSON.stringify(report.forbiddenServerErrors[0])})`,
    );
  none(report.callbacks.notReceived, 'callbacks neither received by the sink nor pending in the dispatcher');
  if (report.callbacks.unverified > 0) reasons.push(`${report.callbacks.unverified} callbacks failed signature verification`);
  if (!report.audit.ok) reasons.push(`the money audit failed: ${report.audit.failedChecks.join(', ')}`);
  for (const fault of report.faults) {
    if (fault.crashed?.length) reasons.push(`${fault.name}: crashed ${fault.crashed.join('; ')}`);
    if (fault.error) reasons.push(`${fault.name}: ${fault.error}`);
    else if (fault.recoveryMs === null) reasons.push(`${fault.name}: the load did not recover within ${fault.boundMs / 1000} s`);
  }
  if (report.faults.length === 0) reasons.push('no fault was injected');
  return { passed: reasons.length === 0, reasons };
}

export function faultsPerKind(faults: readonly FaultResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const fault of faults) counts[fault.kind] = (counts[fault.kind] ?? 0) + 1;
  return counts;
}

const seconds = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`);

export function renderMarkdown(report: ChaosReport, verdict: Verdict): string {
  const lines = [
    `# Chaos run (${report.mode}), ${report.startedAt}`,
    '',
    `**${verdict.passed ? 'PASSED' : 'FAILED'}**${verdict.passed ? '' : `: ${verdict.reasons.join('; ')}`}`,
    '',
    `${report.requestsSent} requests in ${report.loadSeconds.toFixed(0)} s of load (${report.wallSeconds.toFixed(0)} s in all) over ${report.merchants} merchants; instances: ${report.instances.join(', ')}.`,
    '',
    '| 2xx | 4xx | 5xx | of which 503 + Retry-After | timeouts | settled by a status read (happened / not / unknown) |',
    '|---:|---:|---:|---:|---:|---|',
    `| ${report.counts['2xx']} | ${report.counts['4xx']} | ${report.counts['5xx']} | ${report.serviceUnavailable} | ${report.counts.timeout} | ${report.settled.needed} (${report.settled.happened} / ${report.settled.notHappened} / ${report.settled.unknown}) |`,
    '',
    `| lost | duplicated | phantom |`,
    '|---:|---:|---:|',
    `| ${report.lost.length} | ${report.duplicated.length} | ${report.phantom.length} |`,
    '',
    `Faults per kind: ${
      Object.entries(faultsPerKind(report.faults))
        .map(([kind, count]) => `${kind} ${count}`)
        .join(', ') || 'none'
    }.`,
    '',
    '| fault | recovery | measured from | bound |',
    '|---|---:|---|---:|',
    ...report.faults.map((fault) => {
      const crashed = fault.crashed?.length ? `; crashed: ${fault.crashed.join('; ')}` : '';
      return `| ${fault.name} | ${fault.error ? `failed: ${fault.error}` : seconds(fault.recoveryMs)}${crashed} | ${fault.recoveryFrom === 'inject' ? 'the injection' : 'the heal'} | ${seconds(fault.boundMs)} |`;
    }),
    '',
    '| operation | 2xx | 4xx | 5xx | timeouts |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(report.countsByOperation)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([operation, counts]) => `| ${operation} | ${counts['2xx']} | ${counts['4xx']} | ${counts['5xx']} | ${counts.timeout} |`),
    '',
    `Callbacks: ${report.callbacks.received} received by the run’s sink, ${report.callbacks.acknowledged} acknowledged; ${
      report.callbacks.notReceived.length === 0
        ? 'every terminal object’s callback received or pending'
        : `${report.callbacks.notReceived.length} neither received nor pending`
    }.`,
    '',
    `Money audit: ${report.audit.ok ? 'passed' : `FAILED (${report.audit.failedChecks.join(', ')})`}.`,
    '',
    '```',
    report.audit.text,
    '```',
    '',
  ];
  return lines.join('\n');
}
