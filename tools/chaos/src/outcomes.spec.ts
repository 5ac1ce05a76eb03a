import {
  acknowledgedFileLines,
  callbacksNotReceived,
  countOutcomes,
  operationsStuckAtTheEnd,
  isForbiddenServerError,
  reconcile,
  recoveryTime,
  type HeldObject,
  type RequestOutcome,
} from './outcomes';

let sequence = 0;
function outcome(fields: Partial<RequestOutcome>): RequestOutcome {
  sequence += 1;
  return { sequence, operation: 'pay-in', merchantId: 'mrc_a', status: 201, timedOut: false, sentAtMs: 0, latencyMs: 10, ...fields };
}
const created = (orderId: string, fields: Partial<RequestOutcome> = {}) => outcome({ orderId, creates: 'payment', ...fields });
const held = (orderId: string, fields: Partial<HeldObject> = {}): HeldObject => ({ kind: 'payment', merchantId: 'mrc_a', orderId, creations: 1, ...fields });

describe('reconcile: lost, duplicated, phantom', () => {
  it('finds nothing when every acknowledged order exists once and no refused one does', () => {
    const outcomes = [
      created('A'),
      created('A', { operation: 'pay-in-exact-duplicate', status: 200 }),
      created('A', { operation: 'pay-in-mismatched-duplicate', status: 409, code: 'DUPLICATE_ORDER' }),
      created('B', { status: 400 }),
    ];
    expect(reconcile(outcomes, [held('A')])).toEqual({ lost: [], duplicated: [], phantom: [], undetermined: [] });
  });

  it('calls an acknowledged order that is absent lost', () => {
    expect(reconcile([created('A')], []).lost).toEqual(['payment mrc_a/A']);
  });

  it('calls two creations of one order, or two debits of one withdrawal, duplicated', () => {
    const outcomes = [created('A'), outcome({ operation: 'withdrawal', orderId: 'W', creates: 'withdrawal' })];
    const result = reconcile(outcomes, [held('A', { creations: 2 }), held('W', { kind: 'withdrawal', debits: 2 })]);
    expect(result.duplicated).toEqual(['payment mrc_a/A', 'withdrawal mrc_a/W']);
  });

  it('calls an order that exists after a refusal, or that nobody asked for, phantom', () => {
    const result = reconcile([created('A', { status: 409 })], [held('A'), held('never-asked')]);
    expect(result.phantom).toEqual(['payment mrc_a/A', 'payment mrc_a/never-asked']);
  });

  it('takes a timed-out create settled as happened as acknowledged, and one settled as not happened as refused', () => {
    const outcomes = [
      created('T', { status: 0, timedOut: true, settled: 'happened' }),
      created('N', { status: 503, retryAfter: true, settled: 'not-happened' }),
    ];
    expect(reconcile(outcomes, [held('T')])).toEqual({ lost: [], duplicated: [], phantom: [], undetermined: [] });
    expect(reconcile(outcomes, [held('N')]).phantom).toEqual(['payment mrc_a/N']);
    expect(reconcile(outcomes, []).lost).toEqual(['payment mrc_a/T']);
  });

  it('keeps an unsettled timeout apart: neither lost nor phantom, but undetermined', () => {
    const outcomes = [created('U', { status: 0, timedOut: true, settled: 'unknown' })];
    expect(reconcile(outcomes, [held('U')])).toEqual({ lost: [], duplicated: [], phantom: [], undetermined: ['payment mrc_a/U'] });
  });

  it('writes the auditor’s acknowledgement lines, one per settled key', () => {
    const outcomes = [
      created('A', { status: 0, timedOut: true, settled: 'unknown' }),
      created('A'),
      created('B', { status: 409 }),
      created('C', { status: 0, timedOut: true, settled: 'unknown' }),
    ];
    expect(acknowledgedFileLines(outcomes).map((line) => JSON.parse(line))).toEqual([
      { merchant_id: 'mrc_a', order_id: 'A', kind: 'payment', acknowledged: true },
      { merchant_id: 'mrc_a', order_id: 'B', kind: 'payment', acknowledged: false },
    ]);
  });
});

describe('recoveryTime', () => {
  const payIn = (sentAtMs: number, status: number, latencyMs = 100) => outcome({ sentAtMs, status, latencyMs, timedOut: status === 0 });

  it('is the answer time of the first success after the reference whose following stable window has no failure', () => {
    const outcomes = [payIn(900, 201), payIn(1_000, 0), payIn(2_000, 201), payIn(2_500, 503), payIn(4_000, 201, 250), payIn(5_000, 201), payIn(9_500, 201)];
    // 2,000 is followed by a 503 within 2 s; 4,000 is not: answered at 4,250, 3,250 after 1,000.
    expect(recoveryTime(outcomes, 1_000, 2_000, 10_000)).toBe(3_250);
  });

  it('is null until the stable window after a success has passed, and when nothing succeeded', () => {
    expect(recoveryTime([payIn(1_000, 201)], 0, 5_000, 3_000)).toBeNull();
    expect(recoveryTime([payIn(1_000, 201)], 0, 5_000, 6_000)).toBe(1_100);
    expect(recoveryTime([payIn(1_000, 0), payIn(2_000, 500)], 0, 1_000, 60_000)).toBeNull();
  });

  it('ignores other operations and 4xx answers: a refusal is the platform working', () => {
    const outcomes = [outcome({ operation: 'status', sentAtMs: 100, status: 200 }), payIn(200, 409), payIn(300, 201)];
    expect(recoveryTime(outcomes, 0, 1_000, 5_000)).toBe(400);
  });
});

describe('counts and server errors', () => {
  it('counts per class and operation, with no answer as a timeout', () => {
    const counts = countOutcomes([outcome({ status: 201 }), outcome({ status: 0 }), outcome({ operation: 'status', status: 404 }), outcome({ status: 503 })]);
    expect(counts.total).toEqual({ '2xx': 1, '4xx': 1, '5xx': 1, timeout: 1 });
    expect(counts.byOperation['status']).toEqual({ '2xx': 0, '4xx': 1, '5xx': 0, timeout: 0 });
  });

  it('allows a 503 only with Retry-After', () => {
    expect(isForbiddenServerError(outcome({ status: 503, retryAfter: true }))).toBe(false);
    expect(isForbiddenServerError(outcome({ status: 503 }))).toBe(true);
    expect(isForbiddenServerError(outcome({ status: 500 }))).toBe(true);
    expect(isForbiddenServerError(outcome({ status: 0, timedOut: true }))).toBe(false);
  });
});

describe("callbacksNotReceived: the dispatcher's record against the sink's", () => {
  const delivery = (deliveryId: string, status: string) => ({
    deliveryId,
    status,
    merchantId: 'mrc_a',
    subjectKind: 'payment_order',
    subjectId: `order-${deliveryId}`,
    callbackType: 'payment.succeeded',
  });

  it('accepts a callback the sink acknowledged, and one still pending in the dispatcher', () => {
    expect(callbacksNotReceived([delivery('msg_1', 'succeeded'), delivery('msg_2', 'pending')], new Set(['msg_1']))).toEqual([]);
  });

  it('names one the dispatcher counts as delivered that never reached the sink, one it gave up on, and one parked for an endpoint left disabled', () => {
    expect(callbacksNotReceived([delivery('msg_1', 'succeeded'), delivery('msg_2', 'failed'), delivery('msg_3', 'endpoint_disabled')], new Set())).toEqual([
      'succeeded but never received: mrc_a payment_order order-msg_1 payment.succeeded (msg_1)',
      'failed (retries exhausted): mrc_a payment_order order-msg_2 payment.succeeded (msg_2)',
      'endpoint_disabled (parked for an endpoint still disabled): mrc_a payment_order order-msg_3 payment.succeeded (msg_3)',
    ]);
  });
});

describe('operationsStuckAtTheEnd: a flow that never got through again', () => {
  it('names an operation whose last three requests all failed like an outage, whatever the pay-ins did', () => {
    const outcomes = [
      outcome({ operation: 'withdrawal', sentAtMs: 1_000, status: 201 }),
      outcome({ operation: 'withdrawal', sentAtMs: 40_000, status: 503 }),
      outcome({ operation: 'withdrawal', sentAtMs: 50_000, status: 0, timedOut: true }),
      outcome({ operation: 'withdrawal', sentAtMs: 60_000, status: 503 }),
      outcome({ operation: 'pay-in', sentAtMs: 61_000, status: 201 }),
    ];
    expect(operationsStuckAtTheEnd(outcomes)).toEqual(['withdrawal: its last 3 requests (sent from 40.0 s) failed with a 5xx or no answer']);
  });

  it('passes over an operation that got through once more at the end, refusals included, and one sent too rarely to judge', () => {
    const outcomes = [
      outcome({ operation: 'withdrawal', sentAtMs: 40_000, status: 503 }),
      outcome({ operation: 'withdrawal', sentAtMs: 50_000, status: 503 }),
      outcome({ operation: 'withdrawal', sentAtMs: 60_000, status: 201 }),
      outcome({ operation: 'pay-in-mismatched-duplicate', sentAtMs: 40_000, status: 503 }),
      outcome({ operation: 'pay-in-mismatched-duplicate', sentAtMs: 50_000, status: 503 }),
      outcome({ operation: 'pay-in-mismatched-duplicate', sentAtMs: 60_000, status: 409 }),
      outcome({ operation: 'conversion', sentAtMs: 50_000, status: 503 }),
      outcome({ operation: 'conversion', sentAtMs: 60_000, status: 503 }),
    ];
    expect(operationsStuckAtTheEnd(outcomes)).toEqual([]);
  });
});
