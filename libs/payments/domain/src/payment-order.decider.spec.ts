import { DomainError } from '@mp/shared-util-errors';
import { DEFAULT_METHOD_CATALOG } from './method-catalog';
import {
  decide,
  evolve,
  foldPaymentOrder,
  initialPaymentOrder,
  type CreateIncomingPayment,
  type CreateOutgoingPayment,
  type ExistingPaymentOrder,
  type PaymentOrder,
  type PaymentOrderCommand,
} from './payment-order.decider';

const now = new Date('2026-11-22T10:00:00.000Z');
const minutesLater = (minutes: number) => new Date(now.getTime() + minutes * 60_000);

function createIncoming(overrides: Partial<CreateIncomingPayment['data']> = {}): CreateIncomingPayment {
  return {
    type: 'CreateIncomingPayment',
    data: { merchantId: 'mch_1', orderId: 'A-1', amountMinor: 150_000n, currency: 'RUB', country: 'RU', callbackUrl: 'https://shop.example/cb', ...overrides },
    metadata: { now, payerPageTokenHash: 'hash_1', methodCatalog: DEFAULT_METHOD_CATALOG },
  };
}

function createOutgoing(overrides: Partial<CreateOutgoingPayment['data']> = {}): CreateOutgoingPayment {
  return {
    type: 'CreateOutgoingPayment',
    data: { merchantId: 'mch_1', orderId: 'P-1', amountMinor: 200_000n, currency: 'RUB', country: 'RU', method: 'bank_card', callbackUrl: 'https://shop.example/cb', recipientAccount: { reference: 'acct_1', last4: '1111' }, ...overrides },
    metadata: { now, methodCatalog: DEFAULT_METHOD_CATALOG },
  };
}

/** Given a history of commands, the resulting state. */
function given(...commands: PaymentOrderCommand[]): ExistingPaymentOrder {
  let state: PaymentOrder = initialPaymentOrder();
  for (const command of commands) state = decide(command, state).reduce(evolve, state);
  if (state.status === 'NotCreated') throw new Error('no order');
  return state;
}

const at = (minutes = 1) => ({ now: minutesLater(minutes) });
const assign = (agentId = 'agt_1'): PaymentOrderCommand => ({ type: 'AssignAgent', data: { agentId }, metadata: at() });
const markPaid: PaymentOrderCommand = { type: 'MarkPaidByPayer', metadata: at(2) };
const confirm = (agentId = 'agt_1'): PaymentOrderCommand => ({ type: 'ConfirmIncomingPayment', data: { agentId }, metadata: at(3) });
const decline = (agentId = 'agt_1'): PaymentOrderCommand => ({ type: 'DeclinePaymentOrder', data: { agentId, reason: 'not received' }, metadata: at(3) });
const cancel: PaymentOrderCommand = { type: 'CancelPaymentOrder', metadata: at(4) };
const expireAt = (minutes: number): PaymentOrderCommand => ({ type: 'ExpirePaymentOrder', metadata: at(minutes) });
const receipt = { receiptId: 'rcp_1', fileName: 'receipt.pdf', contentType: 'application/pdf', sizeBytes: 1234, uploadedAt: minutesLater(3).toISOString() };
const complete = (agentId = 'agt_1'): PaymentOrderCommand => ({ type: 'CompleteOutgoingPayment', data: { agentId, receipt }, metadata: at(3) });

function thrownBy(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('payment order decider', () => {
  describe('When the order does not exist', () => {
    it('creates a pending pay-in with the fee and expiry of its method', () => {
      const events = decide(createIncoming(), initialPaymentOrder());
      expect(events).toEqual([
        {
          type: 'IncomingPaymentCreated',
          data: {
            merchantId: 'mch_1', orderId: 'A-1', amountMinor: '150000', currency: 'RUB', country: 'RU', method: 'bank_card',
            callbackUrl: 'https://shop.example/cb', feeMinor: '3750', expiresAt: minutesLater(30).toISOString(), createdAt: now.toISOString(), payerPageTokenHash: 'hash_1',
          },
        },
      ]);
      expect(foldPaymentOrder(events)).toMatchObject({ status: 'PENDING', direction: 'incoming', amountMinor: 150_000n, feeMinor: 3_750n, agentId: null });
    });

    it('creates a pending payout with its fee (1.5 % + 50.00 RUB) and a day to complete', () => {
      const order = given(createOutgoing());
      expect(order).toMatchObject({ status: 'PENDING', direction: 'outgoing', method: 'bank_card', recipientAccount: { reference: 'acct_1', last4: '1111' }, feeMinor: 8_000n, expiresAt: minutesLater(1440).toISOString() });
    });

    it('rejects a currency the catalog does not offer', () => {
      const error = thrownBy(() => decide(createIncoming({ currency: 'EUR', country: 'DE' }), initialPaymentOrder()));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details).toEqual([{ field: 'currency', issue: expect.stringContaining('EUR') }]);
    });

    it('rejects a country not offered for the currency', () => {
      expect(thrownBy(() => decide(createIncoming({ country: 'KZ' }), initialPaymentOrder())).details[0].field).toBe('country');
    });

    it('rejects amounts outside the method limits', () => {
      expect(thrownBy(() => decide(createIncoming({ amountMinor: 9_999n }), initialPaymentOrder())).details[0].field).toBe('amount');
      expect(thrownBy(() => decide(createIncoming({ amountMinor: 50_000_001n }), initialPaymentOrder())).details[0].field).toBe('amount');
      expect(thrownBy(() => decide(createOutgoing({ amountMinor: 99_999n }), initialPaymentOrder())).details[0].field).toBe('amount');
    });

    it('rejects a payout method that is not offered', () => {
      expect(thrownBy(() => decide(createOutgoing({ method: 'sbp' }), initialPaymentOrder())).details[0].field).toBe('method');
    });

    it('knows no order for any other command', () => {
      expect(thrownBy(() => decide(cancel, initialPaymentOrder())).code).toBe('ORDER_NOT_FOUND');
    });
  });

  describe('When the order exists', () => {
    it('returns no events for a retry with the same amount and currency', () => {
      expect(decide(createIncoming({ callbackUrl: 'https://other.example' }), given(createIncoming()))).toEqual([]);
      expect(decide(createOutgoing(), given(createOutgoing()))).toEqual([]);
    });

    it('rejects a different amount or currency as DUPLICATE_ORDER', () => {
      expect(thrownBy(() => decide(createIncoming({ amountMinor: 150_001n }), given(createIncoming()))).code).toBe('DUPLICATE_ORDER');
      expect(thrownBy(() => decide(createIncoming({ currency: 'INR', country: 'IN' }), given(createIncoming()))).code).toBe('DUPLICATE_ORDER');
    });

    it('rejects the same order_id in the other direction as DUPLICATE_ORDER', () => {
      const outgoingWithSameId = createOutgoing({ orderId: 'A-1', amountMinor: 150_000n });
      expect(thrownBy(() => decide(outgoingWithSameId, given(createIncoming()))).code).toBe('DUPLICATE_ORDER');
    });

    it('does not consult the catalog for a retry, so a later catalog change cannot break it', () => {
      const retry = { ...createIncoming(), metadata: { now, payerPageTokenHash: 'hash_2', methodCatalog: [] } };
      expect(decide(retry, given(createIncoming()))).toEqual([]);
    });
  });

  describe('When a pay-in is pending', () => {
    it('goes to SUCCEEDED when its agent confirms after the payer paid', () => {
      const order = given(createIncoming(), assign(), markPaid, confirm());
      expect(order).toMatchObject({ status: 'SUCCEEDED', agentId: 'agt_1', payerMarkedPaidAt: minutesLater(2).toISOString() });
      expect(decide(confirm(), order)).toEqual([]);
    });

    it('goes to FAILED when its agent declines', () => {
      expect(given(createIncoming(), assign(), decline())).toMatchObject({ status: 'FAILED', failureReason: 'not received' });
    });

    it('is not found by another agent', () => {
      expect(thrownBy(() => decide(confirm('agt_2'), given(createIncoming(), assign()))).code).toBe('ORDER_NOT_FOUND');
      expect(thrownBy(() => decide(assign('agt_2'), given(createIncoming(), assign()))).code).toBe('ORDER_STATE_CONFLICT');
    });

    it('tells another agent exactly what it tells any agent about an order that does not exist', () => {
      const described = (run: () => unknown) => thrownBy(run).toDescription();
      const missing = [confirm('agt_2'), decline('agt_2'), complete('agt_2')].map((command) => described(() => decide(command, initialPaymentOrder())));
      const othersIncoming = [confirm('agt_2'), decline('agt_2')].map((command) => described(() => decide(command, given(createIncoming(), assign()))));
      const othersOutgoing = [complete('agt_2'), decline('agt_2')].map((command) => described(() => decide(command, given(createOutgoing(), assign()))));
      for (const description of [...missing, ...othersIncoming, ...othersOutgoing]) {
        expect(description).toEqual({ code: 'ORDER_NOT_FOUND', message: 'No such order for this agent', details: [] });
      }
    });

    it('cannot be reported paid before an agent shows payment details', () => {
      expect(thrownBy(() => decide(markPaid, given(createIncoming()))).code).toBe('ORDER_STATE_CONFLICT');
    });

    it('can be cancelled until the payer reports paying', () => {
      expect(given(createIncoming(), assign(), cancel).status).toBe('CANCELLED');
      expect(thrownBy(() => decide(cancel, given(createIncoming(), assign(), markPaid))).code).toBe('ORDER_NOT_CANCELLABLE');
    });

    it('expires at its expiry time, not before, and not once the payer reported paying', () => {
      expect(decide(expireAt(29), given(createIncoming()))).toEqual([]);
      expect(given(createIncoming(), expireAt(30)).status).toBe('EXPIRED');
      expect(decide(expireAt(60), given(createIncoming(), assign(), markPaid))).toEqual([]);
    });
  });

  describe('When a payout is pending', () => {
    it('goes to SUCCEEDED with the receipt when its agent completes it', () => {
      const order = given(createOutgoing(), assign(), complete());
      expect(order).toMatchObject({ status: 'SUCCEEDED', receipts: [receipt] });
    });

    it('can be cancelled until an agent takes it', () => {
      expect(given(createOutgoing(), cancel).status).toBe('CANCELLED');
      expect(thrownBy(() => decide(cancel, given(createOutgoing(), assign()))).code).toBe('ORDER_NOT_CANCELLABLE');
    });

    it('cannot be completed as a pay-in or confirmed as a payout', () => {
      expect(thrownBy(() => decide(confirm(), given(createOutgoing(), assign()))).code).toBe('ORDER_STATE_CONFLICT');
      expect(thrownBy(() => decide(complete(), given(createIncoming(), assign()))).code).toBe('ORDER_STATE_CONFLICT');
    });
  });

  describe('When the order is finished', () => {
    it.each([
      ['SUCCEEDED', [createIncoming(), assign(), confirm()]],
      ['FAILED', [createIncoming(), assign(), decline()]],
      ['EXPIRED', [createIncoming(), expireAt(30)]],
      ['CANCELLED', [createIncoming(), cancel]],
      ['CANCELLED', [createOutgoing(), cancel]],
    ] as Array<[string, PaymentOrderCommand[]]>)('refuses to cancel a %s order', (status, history) => {
      const error = thrownBy(() => decide(cancel, given(...history)));
      expect([error.code, error.details]).toEqual(['ORDER_NOT_CANCELLABLE', [{ field: 'status', issue: status }]]);
    });

    it('refuses a repeated cancel of a cancelled order, so a replayed cancel is never a silent success', () => {
      const error = thrownBy(() => decide(cancel, given(createIncoming(), cancel)));
      expect([error.code, error.message, error.details]).toEqual(['ORDER_NOT_CANCELLABLE', 'Order A-1 cannot be cancelled: it is CANCELLED', [{ field: 'status', issue: 'CANCELLED' }]]);
    });

    it('refuses agent actions on a cancelled order', () => {
      expect(thrownBy(() => decide(confirm(), given(createIncoming(), assign(), cancel))).code).toBe('ORDER_STATE_CONFLICT');
      expect(thrownBy(() => decide(decline(), given(createIncoming(), assign(), confirm()))).code).toBe('ORDER_STATE_CONFLICT');
    });
  });
});
