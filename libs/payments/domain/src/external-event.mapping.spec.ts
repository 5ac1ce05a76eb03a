import { paymentOrderEventTopic } from '@mp/contracts-payments';
import { DEFAULT_METHOD_CATALOG } from './method-catalog';
import { maskAccountNumber, toExternalEvent } from './external-event.mapping';
import {
  decide,
  evolve,
  initialPaymentOrder,
  type ExistingPaymentOrder,
  type PaymentOrder,
  type PaymentOrderCommand,
  type PaymentOrderEvent,
} from './payment-order.decider';

const now = new Date('2026-11-22T10:00:00.000Z');
const later = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
const ACCOUNT_REFERENCE = 'acct_3f9a';
const PAYER_PAGE_TOKEN_HASH = 'c0ffee'.repeat(10);

/** Runs commands through the decider and returns every event with the order after it and its stream version. */
function history(...commands: PaymentOrderCommand[]): Array<{ event: PaymentOrderEvent; orderAfter: ExistingPaymentOrder; version: number }> {
  let state: PaymentOrder = initialPaymentOrder();
  const steps: Array<{ event: PaymentOrderEvent; orderAfter: ExistingPaymentOrder; version: number }> = [];
  for (const command of commands) {
    for (const event of decide(command, state)) {
      state = evolve(state, event);
      if (state.status === 'NotCreated') throw new Error('no order');
      steps.push({ event, orderAfter: state, version: steps.length + 1 });
    }
  }
  return steps;
}

const createPayout: PaymentOrderCommand = {
  type: 'CreateOutgoingPayment',
  data: {
    merchantId: 'mch_1',
    orderId: 'P-1',
    amountMinor: 200_000n,
    currency: 'RUB',
    country: 'RU',
    method: 'bank_card',
    callbackUrl: 'https://shop.example/cb',
    recipientAccount: { reference: ACCOUNT_REFERENCE, last4: '4312' },
  },
  metadata: { now, methodCatalog: DEFAULT_METHOD_CATALOG },
};
const createPayIn: PaymentOrderCommand = {
  type: 'CreateIncomingPayment',
  data: { merchantId: 'mch_1', orderId: 'A-1', amountMinor: 150_050n, currency: 'RUB', country: 'RU', callbackUrl: 'https://shop.example/cb' },
  metadata: { now, payerPageTokenHash: PAYER_PAGE_TOKEN_HASH, methodCatalog: DEFAULT_METHOD_CATALOG },
};
const receipt = { receiptId: 'rcp_1', fileName: 'receipt.pdf', contentType: 'application/pdf', sizeBytes: 1234, uploadedAt: later(3).toISOString() };

describe('internal → external payment-order events', () => {
  it('maps a payout through its life, with versions, the agent and a merchant-facing snapshot', () => {
    const steps = history(
      createPayout,
      { type: 'AssignAgent', data: { agentId: 'agt_1' }, metadata: { now: later(1) } },
      { type: 'CompleteOutgoingPayment', data: { agentId: 'agt_1', receipt }, metadata: { now: later(3) } },
    );
    const external = steps.map(({ event, orderAfter, version }) => toExternalEvent(event, orderAfter, version));

    expect(external.map((event) => [event.type, event.data.version, event.data.status, event.data.agentId])).toEqual([
      ['PaymentOrderCreated', 1, 'PENDING', null],
      ['PaymentOrderAgentAssigned', 2, 'PENDING', 'agt_1'],
      ['PaymentOrderSucceeded', 3, 'SUCCEEDED', 'agt_1'],
    ]);
    expect(external[0].data).toEqual({
      merchantId: 'mch_1',
      orderId: 'P-1',
      direction: 'outgoing',
      status: 'PENDING',
      amountMinor: '200000',
      feeMinor: '8000',
      currency: 'RUB',
      agentId: null,
      version: 1,
      occurredAt: now.toISOString(),
      order: {
        order_id: 'P-1',
        direction: 'outgoing',
        status: 'PENDING',
        sub_status: 'awaiting_agent',
        amount: '2000.00',
        fee: '80.00',
        currency: 'RUB',
        country: 'RU',
        method: 'bank_card',
        callback_url: 'https://shop.example/cb',
        account_number_masked: '•••• 4312',
        failure_reason: null,
        metadata: {},
        expires_at: later(1440).toISOString(),
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      },
    });
    expect(external[1].data.order.sub_status).toBe('agent_assigned');
    expect(external[2].data.occurredAt).toBe(later(3).toISOString());
    // Internal details stay internal: the account reference and the receipt are not carried.
    expect(JSON.stringify(external)).not.toContain(ACCOUNT_REFERENCE);
    expect(JSON.stringify(external)).not.toContain('rcp_1');
  });

  it('maps a pay-in the payer reported paid, without the payer-page token or its hash', () => {
    const steps = history(
      createPayIn,
      { type: 'AssignAgent', data: { agentId: 'agt_2' }, metadata: { now: later(1) } },
      { type: 'MarkPaidByPayer', metadata: { now: later(2) } },
      { type: 'DeclinePaymentOrder', data: { agentId: 'agt_2', reason: 'not received' }, metadata: { now: later(3) } },
    );
    const external = steps.map(({ event, orderAfter, version }) => toExternalEvent(event, orderAfter, version));

    expect(external.map((event) => event.type)).toEqual([
      'PaymentOrderCreated',
      'PaymentOrderAgentAssigned',
      'PaymentOrderPayerReportedPaid',
      'PaymentOrderFailed',
    ]);
    expect(external[2].data.order.sub_status).toBe('payer_reported_paid');
    expect(external[3].data).toMatchObject({
      status: 'FAILED',
      version: 4,
      agentId: 'agt_2',
      order: { status: 'FAILED', failure_reason: 'not received', sub_status: null },
    });
    expect(external[0].data.order).not.toHaveProperty('redirect_url');
    expect(external[0].data.order).not.toHaveProperty('account_number_masked');
    expect(JSON.stringify(external)).not.toContain(PAYER_PAGE_TOKEN_HASH);
  });

  it('maps cancellation and expiry', () => {
    const cancelled = history(createPayIn, { type: 'CancelPaymentOrder', metadata: { now: later(1) } });
    expect(toExternalEvent(cancelled[1].event, cancelled[1].orderAfter, 2)).toMatchObject({
      type: 'PaymentOrderCancelled',
      data: { status: 'CANCELLED', version: 2 },
    });
    const expired = history(createPayout, { type: 'ExpirePaymentOrder', metadata: { now: later(1441) } });
    expect(toExternalEvent(expired[1].event, expired[1].orderAfter, 2)).toMatchObject({
      type: 'PaymentOrderExpired',
      data: { status: 'EXPIRED', direction: 'outgoing' },
    });
  });

  it("puts a pay-in's progress on payments.order.progress, and what moves money or ends an order on payments.order.events", () => {
    const topicsOf = (steps: ReturnType<typeof history>) =>
      steps.map(({ event, orderAfter, version }) => {
        const external = toExternalEvent(event, orderAfter, version);
        return [external.type, paymentOrderEventTopic(external.type, external.data.direction)];
      });
    const payIn = history(
      createPayIn,
      { type: 'AssignAgent', data: { agentId: 'agt_2' }, metadata: { now: later(1) } },
      { type: 'MarkPaidByPayer', metadata: { now: later(2) } },
      { type: 'DeclinePaymentOrder', data: { agentId: 'agt_2', reason: 'not received' }, metadata: { now: later(3) } },
    );
    expect(topicsOf(payIn)).toEqual([
      ['PaymentOrderCreated', 'payments.order.progress'],
      ['PaymentOrderAgentAssigned', 'payments.order.progress'],
      ['PaymentOrderPayerReportedPaid', 'payments.order.progress'],
      ['PaymentOrderFailed', 'payments.order.events'],
    ]);
    // A payout's creation attaches its hold in the ledger, which reads payments.order.events only.
    const payout = history(
      createPayout,
      { type: 'AssignAgent', data: { agentId: 'agt_1' }, metadata: { now: later(1) } },
      { type: 'CompleteOutgoingPayment', data: { agentId: 'agt_1', receipt }, metadata: { now: later(3) } },
    );
    expect(topicsOf(payout)).toEqual([
      ['PaymentOrderCreated', 'payments.order.events'],
      ['PaymentOrderAgentAssigned', 'payments.order.progress'],
      ['PaymentOrderSucceeded', 'payments.order.events'],
    ]);
    expect(topicsOf(history(createPayIn, { type: 'CancelPaymentOrder', metadata: { now: later(1) } }))[1]).toEqual([
      'PaymentOrderCancelled',
      'payments.order.events',
    ]);
    expect(topicsOf(history(createPayout, { type: 'ExpirePaymentOrder', metadata: { now: later(1441) } }))[1]).toEqual([
      'PaymentOrderExpired',
      'payments.order.events',
    ]);
  });

  it('masks an account number as four bullets and its last four characters', () => {
    expect(maskAccountNumber('4312')).toBe('•••• 4312');
  });
});
