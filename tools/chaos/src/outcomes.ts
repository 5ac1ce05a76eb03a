/**
 * The chaos runner's bookkeeping, pure: what one request's outcome is, how a fault's recovery
 * is read off the outcomes, and how the orders the platform holds compare with what the load
 * was told (lost, duplicated, phantom). run-chaos.ts feeds it; outcomes.spec.ts proves it.
 */

/** Every operation the mixed load sends (load.ts), and the settle reads after it. */
export type Operation =
  | 'pay-in'
  | 'pay-in-exact-duplicate'
  | 'pay-in-mismatched-duplicate'
  | 'payer-details'
  | 'agent-confirm'
  | 'agent-decline'
  | 'cancel'
  | 'payout'
  | 'payout-take'
  | 'payout-receipt'
  | 'payout-complete'
  | 'dispute-open'
  | 'dispute-review'
  | 'withdrawal'
  | 'conversion'
  | 'status';

/** What a create makes: a payment order (pay-in or payout) or a withdrawal, as the auditor names them. */
export type CreatedKind = 'payment' | 'withdrawal';

/** One request and what became of it: a line of the run's outcomes.jsonl. */
export interface RequestOutcome {
  sequence: number;
  operation: Operation;
  merchantId: string;
  orderId?: string;
  disputeId?: string;
  /** Set on creates: what the request would have made. */
  creates?: CreatedKind;
  /** The HTTP status; 0 when no answer came (timed out, refused or dropped connection). */
  status: number;
  /** The error model's code of a non-2xx answer, when it had one. */
  code?: string;
  /** Whether a 503 came with Retry-After, as the contract promises during an outage. */
  retryAfter?: boolean;
  timedOut: boolean;
  /** ms since the run started. */
  sentAtMs: number;
  latencyMs: number;
  /** For a timed-out or 5xx request, the status read after the drain: did it happen? */
  settled?: 'happened' | 'not-happened' | 'unknown';
}

export type OutcomeClass = '2xx' | '4xx' | '5xx' | 'timeout';

export function classOf(outcome: Pick<RequestOutcome, 'status' | 'timedOut'>): OutcomeClass {
  if (outcome.timedOut || outcome.status === 0) return 'timeout';
  if (outcome.status >= 500) return '5xx';
  if (outcome.status >= 400) return '4xx';
  return '2xx';
}

/** The platform may not have answered whether it acted: settle it with a status read. */
export const needsSettling = (outcome: RequestOutcome): boolean => ['timeout', '5xx'].includes(classOf(outcome));

/** A 5xx the contract does not allow: anything but a 503 with Retry-After (an outage's "try again"). */
export const isForbiddenServerError = (outcome: RequestOutcome): boolean =>
  classOf(outcome) === '5xx' && !(outcome.status === 503 && outcome.retryAfter === true);

/** What the load holds against a key: the platform said yes (or the settle read found it), said no, or never said. */
export type Acknowledgement = 'acknowledged' | 'refused' | 'unknown';

const keyOf = (kind: CreatedKind, merchantId: string, orderId: string) => JSON.stringify([kind, merchantId, orderId]);

/**
 * Per (kind, merchant, order_id): acknowledged when any create of it was answered 2xx or settled
 * as happened (an exact duplicate or a retry is one order); refused when every one was refused
 * (4xx) or settled as not happened; unknown otherwise (a settle read that could not tell).
 */
export function acknowledgementsOf(
  outcomes: readonly RequestOutcome[],
): Map<string, { kind: CreatedKind; merchantId: string; orderId: string; state: Acknowledgement }> {
  const byKey = new Map<string, { kind: CreatedKind; merchantId: string; orderId: string; state: Acknowledgement }>();
  for (const outcome of outcomes) {
    if (!outcome.creates || !outcome.orderId) continue;
    const key = keyOf(outcome.creates, outcome.merchantId, outcome.orderId);
    const state: Acknowledgement =
      classOf(outcome) === '2xx' || outcome.settled === 'happened'
        ? 'acknowledged'
        : classOf(outcome) === '4xx' || outcome.settled === 'not-happened'
          ? 'refused'
          : 'unknown';
    const earlier = byKey.get(key)?.state;
    const merged: Acknowledgement =
      earlier === 'acknowledged' || state === 'acknowledged' ? 'acknowledged' : earlier === 'unknown' || state === 'unknown' ? 'unknown' : 'refused';
    byKey.set(key, { kind: outcome.creates, merchantId: outcome.merchantId, orderId: outcome.orderId, state: merged });
  }
  return byKey;
}

/** The auditor's `--acknowledged` file (docs/operations/audit.md): one line per key the load settled. */
export function acknowledgedFileLines(outcomes: readonly RequestOutcome[]): string[] {
  return [...acknowledgementsOf(outcomes).values()]
    .filter((entry) => entry.state !== 'unknown')
    .map((entry) => JSON.stringify({ merchant_id: entry.merchantId, order_id: entry.orderId, kind: entry.kind, acknowledged: entry.state === 'acknowledged' }));
}

/** What the platform holds for one key after the drain: how many creations (events) and debits it has. */
export interface HeldObject {
  kind: CreatedKind;
  merchantId: string;
  orderId: string;
  /** Creation events in the owning service's event store (1 when all is well). */
  creations: number;
  /** Withdrawals only: ledger debits (holds placed) of it (at most 1). */
  debits?: number;
}

export interface Reconciliation {
  lost: string[];
  duplicated: string[];
  phantom: string[];
  /** Keys whose settle read could not tell: neither lost nor phantom can be judged. */
  undetermined: string[];
}

/**
 * Lost: acknowledged, yet absent. Duplicated: two creations of one (merchant, order_id), or two
 * debits of one withdrawal. Phantom: present, yet the load was never acknowledged it (refused
 * or never asked). `held` covers the run's merchants only.
 */
export function reconcile(outcomes: readonly RequestOutcome[], held: readonly HeldObject[]): Reconciliation {
  const told = acknowledgementsOf(outcomes);
  const present = new Map(held.map((object) => [keyOf(object.kind, object.merchantId, object.orderId), object]));
  const describe = (kind: CreatedKind, merchantId: string, orderId: string) => `${kind} ${merchantId}/${orderId}`;
  const result: Reconciliation = { lost: [], duplicated: [], phantom: [], undetermined: [] };
  for (const [key, entry] of told) {
    if (entry.state === 'acknowledged' && !present.has(key)) result.lost.push(describe(entry.kind, entry.merchantId, entry.orderId));
    if (entry.state === 'unknown') result.undetermined.push(describe(entry.kind, entry.merchantId, entry.orderId));
  }
  for (const [key, object] of present) {
    const name = describe(object.kind, object.merchantId, object.orderId);
    if (object.creations > 1 || (object.debits ?? 0) > 1) result.duplicated.push(name);
    if (told.get(key)?.state !== 'acknowledged' && told.get(key)?.state !== 'unknown') result.phantom.push(name);
  }
  return result;
}

/** A create that failed in the way an outage fails: no answer, or a server error. */
const failedLikeAnOutage = (outcome: RequestOutcome) => ['timeout', '5xx'].includes(classOf(outcome));

/**
 * When the load had recovered after `fromMs` (ms since the run started): the answer time of the
 * first new pay-in sent at or after `fromMs` that was answered 2xx, provided no pay-in sent in
 * the `stableMs` after it timed out or got a 5xx (otherwise the next success is tried). Null
 * while that has not happened, or while the `stableMs` after a success have not passed yet
 * (`nowMs`). Returns ms since `fromMs`.
 */
export function recoveryTime(outcomes: readonly RequestOutcome[], fromMs: number, stableMs: number, nowMs: number): number | null {
  const payIns = outcomes.filter((outcome) => outcome.operation === 'pay-in' && outcome.sentAtMs >= fromMs).sort((a, b) => a.sentAtMs - b.sentAtMs);
  for (const candidate of payIns) {
    if (classOf(candidate) !== '2xx') continue;
    const windowEnd = candidate.sentAtMs + stableMs;
    if (nowMs < windowEnd) return null;
    const failedAfter = payIns.some((other) => other.sentAtMs >= candidate.sentAtMs && other.sentAtMs <= windowEnd && failedLikeAnOutage(other));
    if (!failedAfter) return candidate.sentAtMs + candidate.latencyMs - fromMs;
  }
  return null;
}

/** Counts per outcome class, per operation and overall. */
export function countOutcomes(outcomes: readonly RequestOutcome[]): {
  total: Record<OutcomeClass, number>;
  byOperation: Record<string, Record<OutcomeClass, number>>;
} {
  const empty = (): Record<OutcomeClass, number> => ({ '2xx': 0, '4xx': 0, '5xx': 0, timeout: 0 });
  const total = empty();
  const byOperation: Record<string, Record<OutcomeClass, number>> = {};
  for (const outcome of outcomes) {
    const outcomeClass = classOf(outcome);
    total[outcomeClass] += 1;
    (byOperation[outcome.operation] ??= empty())[outcomeClass] += 1;
  }
  return { total, byOperation };
}

/** A row of the dispatcher's callback_deliveries, as the run reads it after the drain. */
export interface DispatcherDelivery {
  /** The webhook-id the receiver sees. */
  deliveryId: string;
  status: string;
  merchantId: string;
  subjectKind: string;
  subjectId: string;
  callbackType: string;
}

/** What a delivery in each status says about a callback the sink does not have. */
const NOT_RECEIVED: Record<string, string> = {
  succeeded: 'succeeded but never received',
  failed: 'failed (retries exhausted)',
  endpoint_disabled: 'endpoint_disabled (parked for an endpoint still disabled)',
};

/**
 * The callbacks the merchants' endpoint (the run's sink) should have and does not: every
 * delivery the dispatcher counts as succeeded must be one the sink acknowledged (`received`:
 * webhook-ids); one given up on, or parked for an endpoint the gone fault's heal should have
 * re-enabled, is a callback the merchant never gets. A pending one is still on its way (the
 * auditor's terminal-objects-have-callbacks check makes sure every terminal object has one).
 */
export function callbacksNotReceived(deliveries: readonly DispatcherDelivery[], received: ReadonlySet<string>): string[] {
  return deliveries
    .filter((delivery) => delivery.status !== 'pending' && !(delivery.status === 'succeeded' && received.has(delivery.deliveryId)))
    .map(
      (delivery) =>
        `${NOT_RECEIVED[delivery.status] ?? delivery.status}: ${delivery.merchantId} ${delivery.subjectKind} ${delivery.subjectId} ${delivery.callbackType} (${delivery.deliveryId})`,
    );
}

/** How many of an operation's last requests must all fail before the verdict calls it stuck. */
const STUCK_AFTER_REQUESTS = 3;

/**
 * Operations whose last requests of the run all timed out or got a 5xx: a flow that never got
 * through again after some fault. Recovery is measured on pay-ins alone, so a consumer of
 * another service that stopped for good (withdrawals after a broker restart, say) shows here
 * and nowhere else. An operation sent fewer times than that is not judged.
 */
export function operationsStuckAtTheEnd(outcomes: readonly RequestOutcome[]): string[] {
  const byOperation = new Map<string, RequestOutcome[]>();
  for (const outcome of outcomes) byOperation.set(outcome.operation, [...(byOperation.get(outcome.operation) ?? []), outcome]);
  const stuck: string[] = [];
  for (const [operation, sent] of byOperation) {
    const last = [...sent].sort((a, b) => a.sentAtMs - b.sentAtMs).slice(-STUCK_AFTER_REQUESTS);
    if (last.length < STUCK_AFTER_REQUESTS || !last.every(failedLikeAnOutage)) continue;
    stuck.push(
      `${operation}: its last ${last.length} requests (sent from ${((last[0] as RequestOutcome).sentAtMs / 1000).toFixed(1)} s) failed with a 5xx or no answer`,
    );
  }
  return stuck;
}
