import { isSandboxMerchant, type AuditCheck, type AuditContext, type Violation } from './audit-check';
import { terminalObjectsHaveCallbacks } from './callback-checks';
import { eventHashChains } from './event-chain-checks';
import { availableNotNegative, frozenEqualsOpenHolds, ledgerReplay, postingsBalancePerCurrency } from './ledger-checks';
import { acknowledgedOrdersExist, onePaymentOrderPerOrderId, oneWithdrawalPerOrderId } from './order-checks';
import { noRefundAfterBroadcast, withdrawalBroadcastOnce } from './withdrawal-checks';

/** Every invariant `npm run audit` checks, in report order (docs/operations/audit.md). */
export const AUDIT_CHECKS: readonly AuditCheck[] = [
  postingsBalancePerCurrency,
  ledgerReplay,
  availableNotNegative,
  frozenEqualsOpenHolds,
  onePaymentOrderPerOrderId,
  oneWithdrawalPerOrderId,
  acknowledgedOrdersExist,
  terminalObjectsHaveCallbacks,
  withdrawalBroadcastOnce,
  noRefundAfterBroadcast,
  eventHashChains,
];

export interface CheckResult {
  name: string;
  description: string;
  status: 'passed' | 'failed' | 'skipped';
  /** Live merchants' violations and those of no merchant (a whole currency, an orphan send). */
  violations: Violation[];
  /** Sandbox (`test_`) merchants' violations, audited the same way and reported apart. */
  sandboxViolations: Violation[];
}

export interface AuditReport {
  ok: boolean;
  checks: CheckResult[];
}

/** Runs every check, one after another (each is a few aggregate queries), and collects the verdicts. */
export async function runAudit(context: AuditContext, checks: readonly AuditCheck[] = AUDIT_CHECKS): Promise<AuditReport> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    const found = await check.run(context);
    const violations = found ?? [];
    results.push({
      name: check.name,
      description: check.description,
      status: found === null ? 'skipped' : violations.length > 0 ? 'failed' : 'passed',
      violations: violations.filter((violation) => !isSandboxMerchant(violation.merchantId)),
      sandboxViolations: violations.filter((violation) => isSandboxMerchant(violation.merchantId)),
    });
  }
  return { ok: results.every((result) => result.status !== 'failed'), checks: results };
}

/** The report as an operator reads it: one line per check, then each violation under it. */
export function formatAudit(report: AuditReport): string {
  const lines: string[] = [];
  for (const check of report.checks) {
    const counts = check.status === 'failed' ? ` (${check.violations.length} live, ${check.sandboxViolations.length} sandbox)` : '';
    const why = check.status === 'skipped' ? ' (needs --acknowledged FILE: the caller’s record of acknowledged requests)' : '';
    lines.push(`${check.status.toUpperCase().padEnd(7)} ${check.name}${counts}${why}`);
    for (const violation of check.violations) lines.push(`          - ${violation.message}`);
    for (const violation of check.sandboxViolations) lines.push(`          - [sandbox] ${violation.message}`);
  }
  const failed = report.checks.filter((check) => check.status === 'failed').length;
  lines.push(report.ok ? `OK: ${report.checks.filter((check) => check.status === 'passed').length} check(s) passed` : `VIOLATIONS: ${failed} check(s) failed`);
  return lines.join('\n');
}
