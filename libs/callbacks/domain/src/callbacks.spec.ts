// The contracts' request classes (class-validator decorators) load with the routing table's topic names.
import 'reflect-metadata';
import { judgeAttempt } from './attempt-outcome';
import { originHealthOf } from './origin-circuit';
import { consecutiveFailuresReason, endpointHealthOf, shouldDisableEndpoint } from './endpoint-failures';
import { STORED_ANSWER_MAX_CHARS, storableAnswerText } from './stored-answer';
import { PAYMENT_ORDER_DISPUTE_EVENT_TYPES, PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { CALLBACK_ROUTES, callbackBodyOf, routeEvent, webhookIdOf } from './callback-routing';
import { cumulativeDelaysMs, DEFAULT_RETRY_SCHEDULE, nextRetryDelayMs, parseRetrySchedule } from './retry-schedule';

const order = {
  order_id: 'A-1',
  direction: 'incoming',
  status: 'SUCCEEDED',
  sub_status: null,
  amount: '1500.50',
  fee: '0.00',
  currency: 'RUB',
  country: 'RU',
  method: 'card',
  callback_url: 'https://shop.example/cb',
  failure_reason: null,
  expires_at: '2026-01-01T00:30:00.000Z',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:05:00.000Z',
};
const event = (type: string, data: unknown = { merchantId: 'mch_1', orderId: 'A-1', version: 4, occurredAt: '2026-01-01T00:05:00.000Z', order }) => ({
  id: '0b7c6a4e-5f7d-4a51-9f3e-2d7a9c1b0e11',
  type,
  time: '2026-01-01T00:05:01.000Z',
  data,
});

describe('retry schedule', () => {
  it('by default spans about three days in ten attempts', () => {
    const schedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
    expect(schedule.delaysMs).toHaveLength(10);
    const total = cumulativeDelaysMs(schedule).at(-1) as number;
    expect(total / 3_600_000).toBeCloseTo(75.59, 1);
  });

  it('jitters each delay by at most ±20 % and stops when exhausted', () => {
    const schedule = parseRetrySchedule('0s,10s,1h');
    expect(nextRetryDelayMs(schedule, 1, () => 0)).toBe(8_000);
    expect(nextRetryDelayMs(schedule, 1, () => 0.999999)).toBe(12_000);
    expect(nextRetryDelayMs(schedule, 1, () => 0.5)).toBe(10_000);
    expect(nextRetryDelayMs(schedule, 0, () => 0)).toBe(0);
    expect(nextRetryDelayMs(schedule, 3)).toBeNull();
  });

  it('names a malformed entry', () => {
    expect(() => parseRetrySchedule('5s,soon')).toThrow(/"soon"/);
    expect(() => parseRetrySchedule('5s,-1m')).toThrow(/-1m/);
  });
});

describe('attempt verdicts', () => {
  it.each([
    [200, 'succeeded', 'done'],
    [204, 'succeeded', 'done'],
    [301, 'redirect', 'retry'],
    [302, 'redirect', 'retry'],
    [410, 'gone', 'disable_endpoint'],
    [404, 'http_error', 'retry'],
    [500, 'http_error', 'retry'],
  ])('%i is %s', (status, outcome, next) => {
    expect(judgeAttempt({ kind: 'response', status })).toEqual({ outcome, next });
  });

  it('retries timeouts, network errors and refused destinations', () => {
    for (const kind of ['timeout', 'network_error', 'refused_destination'] as const) expect(judgeAttempt({ kind })).toEqual({ outcome: kind, next: 'retry' });
  });
});

describe('routing', () => {
  it.each([
    ['PaymentOrderSucceeded', 'payment.succeeded'],
    ['PaymentOrderFailed', 'payment.failed'],
    ['PaymentOrderCancelled', 'payment.cancelled'],
    ['PaymentOrderExpired', 'payment.expired'],
  ])('%s becomes %s to the order callback_url with the snapshot and its version', (type, callbackType) => {
    const routed = routeEvent(CALLBACK_ROUTES, 'payments.order.events', event(type));
    expect(routed).toEqual({
      kind: 'callback',
      intent: {
        merchantId: 'mch_1',
        callbackType,
        subject: { kind: 'payment_order', id: 'A-1' },
        stateVersion: 4,
        target: { kind: 'url', url: 'https://shop.example/cb' },
        state: order,
        occurredAt: '2026-01-01T00:05:00.000Z',
      },
    });
    if (routed.kind !== 'callback') throw new Error('not routed');
    const id = webhookIdOf(event(type).id);
    expect(id).toBe('msg_0b7c6a4e5f7d4a519f3e2d7a9c1b0e11');
    const body = callbackBodyOf(id, routed.intent);
    // Money as the status endpoint writes it: JSON numbers with the snapshot's exact digits.
    expect(body).toContain('"amount":1500.50,"fee":0.00,');
    expect(JSON.parse(body)).toEqual({
      id,
      type: callbackType,
      created_at: '2026-01-01T00:05:00.000Z',
      data: { ...order, amount: 1500.5, fee: 0, version: 4 },
    });
  });

  it('names the masked recipient of a payout account_number, in the place the status endpoint has it', () => {
    const payout = { ...order, direction: 'outgoing', account_number_masked: '•••• 4312' };
    const routed = routeEvent(
      CALLBACK_ROUTES,
      'payments.order.events',
      event('PaymentOrderSucceeded', { merchantId: 'mch_1', orderId: 'A-1', version: 4, occurredAt: '2026-01-01T00:05:00.000Z', order: payout }),
    );
    if (routed.kind !== 'callback') throw new Error('not routed');
    const { account_number_masked: _masked, ...rest } = payout;
    expect(routed.intent.state).toEqual({ ...rest, account_number: '•••• 4312' });
    expect(Object.keys(routed.intent.state).slice(9, 11)).toEqual(['callback_url', 'account_number']);
  });

  it('ignores events that are not outcomes and other topics', () => {
    expect(routeEvent(CALLBACK_ROUTES, 'payments.order.events', event('PaymentOrderCreated'))).toEqual({ kind: 'ignored' });
    expect(routeEvent(CALLBACK_ROUTES, 'other.topic', event('PaymentOrderSucceeded'))).toEqual({ kind: 'ignored' });
  });

  it('ignores payments’ acknowledgement of a dispute review: the merchant hears of it as dispute.accepted/rejected and payment.succeeded', () => {
    const applied = event(PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied, {
      merchantId: 'mch_1',
      orderId: 'A-1',
      disputeId: 'dsp_1',
      disputeVersion: 2,
      occurredAt: '2026-01-01T00:05:00.000Z',
    });
    expect(routeEvent(CALLBACK_ROUTES, PAYMENTS_TOPICS.orderEvents, applied)).toEqual({ kind: 'ignored' });
  });

  const withdrawal = {
    order_id: 'W-1',
    status: 'COMPLETED',
    amount: '15.000000',
    network_fee: '1.000000',
    currency: 'USDT-TRC20',
    network: 'TRON',
    address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    transaction_hash: 'ab12',
    failure_reason: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:05:00.000Z',
  };
  const dispute = {
    dispute_id: 'dsp_1',
    order_id: 'A-1',
    status: 'ACCEPTED',
    amount: '950.00',
    currency: 'RUB',
    comment: 'paid 950',
    receipt: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:05:00.000Z',
    review: { decision: 'ACCEPTED', reason: null, settled_amount: '950.00', reviewed_at: '2026-01-01T00:05:00.000Z' },
  };

  it.each([
    [
      'withdrawals.events',
      'WithdrawalCompleted',
      'withdrawal.completed',
      { merchantId: 'mch_1', orderId: 'W-1', version: 3, occurredAt: '2026-01-01T00:05:00.000Z', withdrawal },
      { kind: 'withdrawal', id: 'W-1' },
      withdrawal,
    ],
    [
      'withdrawals.events',
      'WithdrawalFailed',
      'withdrawal.failed',
      { merchantId: 'mch_1', orderId: 'W-1', version: 3, occurredAt: '2026-01-01T00:05:00.000Z', withdrawal },
      { kind: 'withdrawal', id: 'W-1' },
      withdrawal,
    ],
    [
      'disputes.events',
      'DisputeOpened',
      'dispute.opened',
      { merchantId: 'mch_1', orderId: 'A-1', disputeId: 'dsp_1', version: 1, occurredAt: '2026-01-01T00:05:00.000Z', dispute },
      { kind: 'dispute', id: 'dsp_1' },
      dispute,
    ],
    [
      'disputes.events',
      'DisputeAcceptedVisible',
      'dispute.accepted',
      { merchantId: 'mch_1', orderId: 'A-1', disputeId: 'dsp_1', version: 2, occurredAt: '2026-01-01T00:05:00.000Z', dispute },
      { kind: 'dispute', id: 'dsp_1' },
      dispute,
    ],
    [
      'disputes.events',
      'DisputeRejectedVisible',
      'dispute.rejected',
      { merchantId: 'mch_1', orderId: 'A-1', disputeId: 'dsp_1', version: 2, occurredAt: '2026-01-01T00:05:00.000Z', dispute },
      { kind: 'dispute', id: 'dsp_1' },
      dispute,
    ],
  ])('%s %s becomes %s to the merchant default URL with its state object', (topic, type, callbackType, data, subject, state) => {
    const routed = routeEvent(CALLBACK_ROUTES, topic, event(type, data));
    expect(routed).toEqual({
      kind: 'callback',
      intent: {
        merchantId: 'mch_1',
        callbackType,
        subject,
        stateVersion: (data as { version: number }).version,
        target: { kind: 'merchant_default' },
        state,
        occurredAt: '2026-01-01T00:05:00.000Z',
      },
    });
    if (routed.kind !== 'callback') return;
    const body = JSON.parse(callbackBodyOf(webhookIdOf('0b7c6a4e-5f7d-4a51-9f3e-2d7a9c1b0e11'), routed.intent));
    // Money goes out as JSON numbers with the same digits, as the state endpoints write it.
    expect(body.data.amount).toBe(Number((state as { amount: string }).amount));
    expect(body.data.version).toBe((data as { version: number }).version);
  });

  it('ignores a withdrawal request (no outcome yet)', () => {
    expect(
      routeEvent(CALLBACK_ROUTES, 'withdrawals.events', event('WithdrawalRequested', { merchantId: 'mch_1', orderId: 'W-1', version: 1, withdrawal })),
    ).toEqual({ kind: 'ignored' });
  });

  it('leaves a review to payments: its callback waits for the outcome to be visible (DisputeAcceptedVisible, DisputeRejectedVisible)', () => {
    for (const type of ['DisputeAccepted', 'DisputeRejected']) {
      expect(
        routeEvent(CALLBACK_ROUTES, 'disputes.events', event(type, { merchantId: 'mch_1', orderId: 'A-1', disputeId: 'dsp_1', version: 2, dispute })),
      ).toEqual({ kind: 'ignored' });
    }
  });
});

describe('stored answers', () => {
  it('replaces NUL and lone surrogates (PostgreSQL text holds neither) and bounds the length without splitting a pair', () => {
    expect(storableAnswerText('ok\u0000done')).toBe('ok\uFFFDdone');
    expect(storableAnswerText('a\uD800b\uDC00')).toBe('a\uFFFDb\uFFFD');
    expect(storableAnswerText('\u0000'.repeat(2_000))).toBe('\uFFFD'.repeat(STORED_ANSWER_MAX_CHARS));
    expect(storableAnswerText(`${'x'.repeat(STORED_ANSWER_MAX_CHARS - 1)}😀`)).toBe(`${'x'.repeat(STORED_ANSWER_MAX_CHARS - 1)}\uFFFD`);
    expect(storableAnswerText('😀 fine')).toBe('😀 fine');
    expect(storableAnswerText(null)).toBeNull();
  });
});

describe('origin health for the circuit breaker', () => {
  it.each([
    [{ kind: 'response', status: 200 }, 'up'],
    [{ kind: 'response', status: 404 }, 'up'],
    [{ kind: 'response', status: 302 }, 'up'],
    [{ kind: 'response', status: 429 }, 'down'],
    [{ kind: 'response', status: 503 }, 'down'],
    [{ kind: 'timeout' }, 'down'],
    [{ kind: 'network_error' }, 'down'],
    [{ kind: 'refused_destination' }, null],
  ] as const)('%j counts as %s', (result, health) => {
    expect(originHealthOf(result)).toBe(health);
  });
});

describe('disabling an endpoint that keeps failing', () => {
  const policy = { failureThreshold: 3, minimumDurationMs: 60 * 60_000 };
  const since = new Date('2026-01-01T00:00:00.000Z');
  const at = (minutes: number) => new Date(since.getTime() + minutes * 60_000);

  it('needs both the number of failures in a row and the time they span', () => {
    expect(shouldDisableEndpoint({ consecutiveFailures: 2, failingSince: since }, policy, at(600))).toBe(false);
    expect(shouldDisableEndpoint({ consecutiveFailures: 50, failingSince: since }, policy, at(59))).toBe(false);
    expect(shouldDisableEndpoint({ consecutiveFailures: 3, failingSince: since }, policy, at(60))).toBe(true);
    expect(shouldDisableEndpoint({ consecutiveFailures: 1, failingSince: since }, { failureThreshold: 1, minimumDurationMs: 0 }, since)).toBe(true);
  });

  it('counts every failed attempt, resets on a success and leaves a 410 to its own rule', () => {
    expect(endpointHealthOf(judgeAttempt({ kind: 'response', status: 500 }))).toBe('down');
    expect(endpointHealthOf(judgeAttempt({ kind: 'timeout' }))).toBe('down');
    expect(endpointHealthOf(judgeAttempt({ kind: 'response', status: 302 }))).toBe('down');
    expect(endpointHealthOf(judgeAttempt({ kind: 'response', status: 204 }))).toBe('up');
    expect(endpointHealthOf(judgeAttempt({ kind: 'response', status: 410 }))).toBeNull();
  });

  it('says why', () => {
    expect(consecutiveFailuresReason({ consecutiveFailures: 20, failingSince: since })).toBe('20 consecutive failed attempts since 2026-01-01T00:00:00.000Z');
  });
});
