import { renderMarkdown, verdictOf, type ChaosReport } from './report';

function report(fields: Partial<ChaosReport> = {}): ChaosReport {
  return {
    mode: 'quick',
    startedAt: '2026-11-26T15:00:00.000Z',
    wallSeconds: 95,
    loadSeconds: 60,
    merchants: 3,
    instances: ['gateway', 'payments', 'payments-2'],
    requestsSent: 1200,
    counts: { '2xx': 1100, '4xx': 80, '5xx': 12, timeout: 8 },
    countsByOperation: { 'pay-in': { '2xx': 500, '4xx': 0, '5xx': 12, timeout: 8 } },
    serviceUnavailable: 12,
    forbiddenServerErrors: [],
    settled: { needed: 20, happened: 11, notHappened: 9, unknown: 0 },
    lost: [],
    duplicated: [],
    phantom: [],
    undetermined: [],
    stuckOperations: [],
    faults: [
      { kind: 'sigkill', name: 'sigkill ledger', injectedAtMs: 10_000, healedAtMs: 16_000, recoveryMs: 2_400, recoveryFrom: 'inject', boundMs: 30_000 },
      {
        kind: 'kafka-restart',
        name: 'kafka restart (4 s down)',
        injectedAtMs: 30_000,
        healedAtMs: 40_000,
        recoveryMs: 7_100,
        recoveryFrom: 'heal',
        boundMs: 45_000,
      },
    ],
    callbacks: { received: 420, acknowledged: 410, unverified: 0, notReceived: [] },
    audit: { ok: true, failedChecks: [], text: 'OK: 10 check(s) passed' },
    files: { outcomes: 'o.jsonl', acknowledged: 'a.jsonl' },
    ...fields,
  };
}

describe('the verdict', () => {
  it('passes a run with no loss, no duplicate, no phantom, a clean audit and every fault recovered', () => {
    expect(verdictOf(report())).toEqual({ passed: true, reasons: [] });
  });

  it('fails on each broken promise, naming it', () => {
    const failed = verdictOf(
      report({
        lost: ['payment mrc_a/A'],
        phantom: ['withdrawal mrc_a/W'],
        forbiddenServerErrors: [{ operation: 'pay-in', status: 500, code: 'INTERNAL_ERROR' }],
        audit: { ok: false, failedChecks: ['ledger-replay'], text: '' },
        faults: [
          { kind: 'sigkill', name: 'sigkill payments-2', injectedAtMs: 0, healedAtMs: 1_000, recoveryMs: null, recoveryFrom: 'inject', boundMs: 30_000 },
          {
            kind: 'kafka-restart',
            name: 'kafka restart',
            injectedAtMs: 0,
            healedAtMs: 1_000,
            recoveryMs: 9_000,
            recoveryFrom: 'heal',
            boundMs: 45_000,
            crashed: ['gateway (exit 1: DomainError)'],
          },
        ],
      }),
    );
    expect(failed.passed).toBe(false);
    expect(failed.reasons).toEqual([
      '1 lost: payment mrc_a/A',
      '1 phantom: withdrawal mrc_a/W',
      expect.stringContaining('1 server errors other than 503 with Retry-After'),
      'the money audit failed: ledger-replay',
      'sigkill payments-2: the load did not recover within 30 s',
      'kafka restart: crashed gateway (exit 1: DomainError)',
    ]);
  });

  it('fails a run whose dispatcher counts a callback the sink never had, or whose callbacks failed their signature', () => {
    const callbacks = {
      received: 420,
      acknowledged: 410,
      unverified: 2,
      notReceived: ['succeeded but never received: mrc_a payment_order A payment.succeeded (msg_1)'],
    };
    expect(verdictOf(report({ callbacks })).reasons).toEqual([
      '1 callbacks neither received by the sink nor pending in the dispatcher: succeeded but never received: mrc_a payment_order A payment.succeeded (msg_1)',
      '2 callbacks failed signature verification',
    ]);
  });

  it('fails a run where some flow never got through again, though the pay-ins did', () => {
    const stuck = ['withdrawal: its last 3 requests (sent from 40.0 s) failed with a 5xx or no answer'];
    expect(verdictOf(report({ stuckOperations: stuck })).reasons).toEqual([
      '1 operations that never got through again: withdrawal: its last 3 requests (sent from 40.0 s) failed with a 5xx or no answer',
    ]);
  });

  it('fails a run that injected nothing: it proved nothing', () => {
    expect(verdictOf(report({ faults: [] })).reasons).toEqual(['no fault was injected']);
  });
});

describe('the markdown summary', () => {
  it('shows the counts, the losses, each fault’s recovery and the audit', () => {
    const text = renderMarkdown(report(), verdictOf(report()));
    expect(text).toContain('**PASSED**');
    expect(text).toContain('| 1100 | 80 | 12 | 12 | 8 | 20 (11 / 9 / 0) |');
    expect(text).toContain('| 0 | 0 | 0 |');
    expect(text).toContain('Faults per kind: sigkill 1, kafka-restart 1.');
    expect(text).toContain('| sigkill ledger | 2.4 s | the injection | 30.0 s |');
    expect(text).toContain('| kafka restart (4 s down) | 7.1 s | the heal | 45.0 s |');
    expect(text).toContain('Callbacks: 420 received by the run’s sink, 410 acknowledged; every terminal object’s callback received or pending.');
    expect(text).toContain('Money audit: passed.');
  });

  it('leads with FAILED and the reasons when the verdict failed', () => {
    const failing = report({ duplicated: ['payment mrc_a/A'] });
    expect(renderMarkdown(failing, verdictOf(failing))).toContain('**FAILED**: 1 duplicated: payment mrc_a/A');
  });
});
