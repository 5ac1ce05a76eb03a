import { DeciderSpecification, eventCodec } from '@mp/shared-decider';
import { DEFAULT_METHOD_CATALOG } from './method-catalog';
import {
  PAYMENT_ORDER_EVENT_SCHEMAS,
  paymentOrderDecider,
  type CreateIncomingPayment,
  type CreateOutgoingPayment,
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
    data: {
      merchantId: 'mch_1',
      orderId: 'P-1',
      amountMinor: 200_000n,
      currency: 'RUB',
      country: 'RU',
      method: 'bank_card',
      callbackUrl: 'https://shop.example/cb',
      recipientAccount: { reference: 'acct_1', last4: '1111' },
      ...overrides,
    },
    metadata: { now, methodCatalog: DEFAULT_METHOD_CATALOG },
  };
}

/** Given/when/then over the decider; `givenCommands` reaches each state through the decider itself. */
const spec = DeciderSpecification.for(paymentOrderDecider);
const noOrder = spec.given([]);

const at = (minutes = 1) => ({ now: minutesLater(minutes) });
const assign = (agentId = 'agt_1'): PaymentOrderCommand => ({ type: 'AssignAgent', data: { agentId }, metadata: at() });
const markPaid: PaymentOrderCommand = { type: 'MarkPaidByPayer', metadata: at(2) };
const confirm = (agentId = 'agt_1'): PaymentOrderCommand => ({ type: 'ConfirmIncomingPayment', data: { agentId }, metadata: at(3) });
const decline = (agentId = 'agt_1'): PaymentOrderCommand => ({ type: 'DeclinePaymentOrder', data: { agentId, reason: 'not received' }, metadata: at(3) });
const cancel: PaymentOrderCommand = { type: 'CancelPaymentOrder', metadata: at(4) };
const expireAt = (minutes: number): PaymentOrderCommand => ({ type: 'ExpirePaymentOrder', metadata: at(minutes) });
const receipt = { receiptId: 'rcp_1', fileName: 'receipt.pdf', contentType: 'application/pdf', sizeBytes: 1234, uploadedAt: minutesLater(3).toISOString() };
const complete = (agentId = 'agt_1'): PaymentOrderCommand => ({ type: 'CompleteOutgoingPayment', data: { agentId, receipt }, metadata: at(3) });

describe('payment order decider', () => {
  describe('When the order does not exist', () => {
    it('creates a pending pay-in with the fee and expiry of its method', () => {
      const { events } = noOrder.when(createIncoming()).then([
        {
          type: 'IncomingPaymentCreated',
          data: {
            merchantId: 'mch_1',
            orderId: 'A-1',
            amountMinor: '150000',
            currency: 'RUB',
            country: 'RU',
            method: 'bank_card',
            callbackUrl: 'https://shop.example/cb',
            feeMinor: '3750',
            expiresAt: minutesLater(30).toISOString(),
            createdAt: now.toISOString(),
            payerPageTokenHash: 'hash_1',
            returnUrl: null,
            metadata: {},
          },
        },
      ]);
      expect(events.reduce(paymentOrderDecider.evolve, paymentOrderDecider.initialState())).toMatchObject({
        status: 'PENDING',
        direction: 'incoming',
        amountMinor: 150_000n,
        feeMinor: 3_750n,
        agentId: null,
      });
    });

    it('creates a pending payout with its fee (1.5 % + 50.00 RUB) and a day to complete', () => {
      const order = spec.givenCommands(createOutgoing()).state();
      expect(order).toMatchObject({
        status: 'PENDING',
        direction: 'outgoing',
        method: 'bank_card',
        recipientAccount: { reference: 'acct_1', last4: '1111' },
        feeMinor: 8_000n,
        expiresAt: minutesLater(1440).toISOString(),
      });
    });

    it('rejects a currency the catalog does not offer', () => {
      const error = noOrder.when(createIncoming({ currency: 'EUR', country: 'DE' })).thenThrows('VALIDATION_ERROR');
      expect(error.details).toEqual([{ field: 'currency', issue: expect.stringContaining('EUR') }]);
    });

    it('rejects a country not offered for the currency', () => {
      expect(noOrder.when(createIncoming({ country: 'KZ' })).thenThrows('VALIDATION_ERROR').details[0].field).toBe('country');
    });

    it('rejects amounts outside the method limits', () => {
      expect(noOrder.when(createIncoming({ amountMinor: 9_999n })).thenThrows('VALIDATION_ERROR').details[0].field).toBe('amount');
      expect(noOrder.when(createIncoming({ amountMinor: 50_000_001n })).thenThrows('VALIDATION_ERROR').details[0].field).toBe('amount');
      expect(noOrder.when(createOutgoing({ amountMinor: 99_999n })).thenThrows('VALIDATION_ERROR').details[0].field).toBe('amount');
    });

    it('rejects a payout method that is not offered', () => {
      expect(noOrder.when(createOutgoing({ method: 'sbp' })).thenThrows('VALIDATION_ERROR').details[0].field).toBe('method');
    });

    it('knows no order for any other command', () => {
      noOrder.when(cancel).thenThrows('ORDER_NOT_FOUND');
    });
  });

  describe('When the order exists', () => {
    it('returns no events for a retry with the same amount and currency', () => {
      spec
        .givenCommands(createIncoming())
        .when(createIncoming({ callbackUrl: 'https://other.example' }))
        .thenNothingHappens();
      spec.givenCommands(createOutgoing()).when(createOutgoing()).thenNothingHappens();
    });

    it('rejects a different amount or currency as DUPLICATE_ORDER', () => {
      spec
        .givenCommands(createIncoming())
        .when(createIncoming({ amountMinor: 150_001n }))
        .thenThrows('DUPLICATE_ORDER');
      spec
        .givenCommands(createIncoming())
        .when(createIncoming({ currency: 'INR', country: 'IN' }))
        .thenThrows('DUPLICATE_ORDER');
    });

    it('rejects a payout retried to another recipient account as DUPLICATE_ORDER, naming the field and not the number', () => {
      const toAnotherAccount = createOutgoing({ recipientAccount: { reference: 'acct_other', last4: '0004' } });
      const error = spec
        .givenCommands(createOutgoing())
        .when({ ...toAnotherAccount, metadata: { ...toAnotherAccount.metadata, sameRecipientAccount: false } })
        .thenThrows('DUPLICATE_ORDER');
      expect(error.details.map((detail) => detail.field)).toEqual(['account_number']);
      const toTheSameAccount = createOutgoing({ recipientAccount: { reference: 'acct_copy', last4: '1111' } });
      spec
        .givenCommands(createOutgoing())
        .when({ ...toTheSameAccount, metadata: { ...toTheSameAccount.metadata, sameRecipientAccount: true } })
        .thenNothingHappens();
    });

    it('rejects the same order_id in the other direction as DUPLICATE_ORDER', () => {
      const outgoingWithSameId = createOutgoing({ orderId: 'A-1', amountMinor: 150_000n });
      spec.givenCommands(createIncoming()).when(outgoingWithSameId).thenThrows('DUPLICATE_ORDER');
    });

    it('keeps the metadata and return URL it was created with, and answers a retry with other metadata as DUPLICATE_ORDER naming the field', () => {
      const withMetadata = createIncoming({ metadata: { cart_id: 'C-1', customer: 'U-2' }, returnUrl: 'https://shop.example/back' });
      expect(spec.givenCommands(withMetadata).state()).toMatchObject({ metadata: { cart_id: 'C-1', customer: 'U-2' }, returnUrl: 'https://shop.example/back' });
      spec
        .givenCommands(withMetadata)
        .when(createIncoming({ metadata: { customer: 'U-2', cart_id: 'C-1' } }))
        .thenNothingHappens();
      for (const other of [{ cart_id: 'C-2', customer: 'U-2' }, { cart_id: 'C-1' }, undefined] as Array<Record<string, string> | undefined>) {
        const error = spec
          .givenCommands(withMetadata)
          .when(createIncoming({ metadata: other }))
          .thenThrows('DUPLICATE_ORDER');
        expect(error.details.map((detail) => detail.field)).toEqual(['metadata']);
      }
      spec
        .givenCommands(createOutgoing())
        .when(createOutgoing({ metadata: {} }))
        .thenNothingHappens();
      spec
        .givenCommands(createOutgoing())
        .when(createOutgoing({ metadata: { invoice: 'I-9' } }))
        .thenThrows('DUPLICATE_ORDER');
    });

    it('does not consult the catalog for a retry, so a later catalog change cannot break it', () => {
      const retry = { ...createIncoming(), metadata: { now, payerPageTokenHash: 'hash_2', methodCatalog: [] } };
      spec.givenCommands(createIncoming()).when(retry).thenNothingHappens();
    });
  });

  describe('When a pay-in is pending', () => {
    it('goes to SUCCEEDED when its agent confirms after the payer paid', () => {
      const succeeded = spec.givenCommands(createIncoming(), assign(), markPaid, confirm());
      expect(succeeded.state()).toMatchObject({ status: 'SUCCEEDED', agentId: 'agt_1', payerMarkedPaidAt: minutesLater(2).toISOString() });
      succeeded.when(confirm()).thenNothingHappens();
    });

    it('goes to FAILED when its agent declines', () => {
      expect(spec.givenCommands(createIncoming(), assign(), decline()).state()).toMatchObject({ status: 'FAILED', failureReason: 'not received' });
    });

    it('is not found by another agent', () => {
      spec.givenCommands(createIncoming(), assign()).when(confirm('agt_2')).thenThrows('ORDER_NOT_FOUND');
      spec.givenCommands(createIncoming(), assign()).when(assign('agt_2')).thenThrows('ORDER_STATE_CONFLICT');
    });

    it('tells another agent exactly what it tells any agent about an order that does not exist', () => {
      const described = (states: ReturnType<typeof spec.givenCommands>, command: PaymentOrderCommand) =>
        states.when(command).thenThrows('ORDER_NOT_FOUND').toDescription();
      const missing = [confirm('agt_2'), decline('agt_2'), complete('agt_2')].map((command) => described(spec.givenCommands(), command));
      const othersIncoming = [confirm('agt_2'), decline('agt_2')].map((command) => described(spec.givenCommands(createIncoming(), assign()), command));
      const othersOutgoing = [complete('agt_2'), decline('agt_2')].map((command) => described(spec.givenCommands(createOutgoing(), assign()), command));
      for (const description of [...missing, ...othersIncoming, ...othersOutgoing]) {
        expect(description).toEqual({ code: 'ORDER_NOT_FOUND', message: 'No such order for this agent', details: [] });
      }
    });

    it('cannot be reported paid before an agent shows payment details', () => {
      spec.givenCommands(createIncoming()).when(markPaid).thenThrows('ORDER_STATE_CONFLICT');
    });

    it('can be cancelled until the payer reports paying', () => {
      expect(spec.givenCommands(createIncoming(), assign(), cancel).state().status).toBe('CANCELLED');
      spec.givenCommands(createIncoming(), assign(), markPaid).when(cancel).thenThrows('ORDER_NOT_CANCELLABLE');
    });

    it('expires at its expiry time, not before, and not once the payer reported paying', () => {
      spec.givenCommands(createIncoming()).when(expireAt(29)).thenNothingHappens();
      expect(spec.givenCommands(createIncoming(), expireAt(30)).state().status).toBe('EXPIRED');
      spec.givenCommands(createIncoming(), assign(), markPaid).when(expireAt(60)).thenNothingHappens();
    });
  });

  describe('When a payout is pending', () => {
    it('goes to SUCCEEDED with the receipt when its agent completes it', () => {
      expect(spec.givenCommands(createOutgoing(), assign(), complete()).state()).toMatchObject({ status: 'SUCCEEDED', receipts: [receipt] });
    });

    it('can be cancelled until an agent takes it', () => {
      expect(spec.givenCommands(createOutgoing(), cancel).state().status).toBe('CANCELLED');
      spec.givenCommands(createOutgoing(), assign()).when(cancel).thenThrows('ORDER_NOT_CANCELLABLE');
    });

    it('cannot be completed as a pay-in or confirmed as a payout', () => {
      spec.givenCommands(createOutgoing(), assign()).when(confirm()).thenThrows('ORDER_STATE_CONFLICT');
      spec.givenCommands(createIncoming(), assign()).when(complete()).thenThrows('ORDER_STATE_CONFLICT');
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
      const error = spec
        .givenCommands(...history)
        .when(cancel)
        .thenThrows('ORDER_NOT_CANCELLABLE');
      expect([error.code, error.details]).toEqual(['ORDER_NOT_CANCELLABLE', [{ field: 'status', issue: status }]]);
    });

    it('refuses a repeated cancel of a cancelled order, so a replayed cancel is never a silent success', () => {
      const error = spec.givenCommands(createIncoming(), cancel).when(cancel).thenThrows('ORDER_NOT_CANCELLABLE', 'status');
      expect([error.code, error.message, error.details]).toEqual([
        'ORDER_NOT_CANCELLABLE',
        'Order A-1 cannot be cancelled: it is CANCELLED',
        [{ field: 'status', issue: 'CANCELLED' }],
      ]);
    });

    it('refuses agent actions on a cancelled order', () => {
      spec.givenCommands(createIncoming(), assign(), cancel).when(confirm()).thenThrows('ORDER_STATE_CONFLICT');
      spec.givenCommands(createIncoming(), assign(), confirm()).when(decline()).thenThrows('ORDER_STATE_CONFLICT');
    });
  });

  describe('When a dispute on a pay-in is accepted', () => {
    const settle = (amountMinor: bigint, methodCatalog = DEFAULT_METHOD_CATALOG): PaymentOrderCommand => ({
      type: 'SettleIncomingPaymentByDispute',
      data: { disputeId: 'dsp_1', amountMinor },
      metadata: { now: minutesLater(10), methodCatalog },
    });

    it('settles a declined pay-in as SUCCEEDED for the disputed amount, with its method fee for that amount', () => {
      const { state } = spec.givenCommands(createIncoming(), assign(), decline()).when(settle(140_000n)).outcome();
      // bank_card pay-ins in the default catalog: 2.5 %, so 3500 on 1400.00.
      expect(state).toMatchObject({ status: 'SUCCEEDED', amountMinor: 140_000n, feeMinor: 3_500n, failureReason: null });
    });

    it('scales the order fee when the merchant no longer has the method', () => {
      const { state } = spec.givenCommands(createIncoming(), assign(), decline()).when(settle(75_000n, [])).outcome();
      expect(state).toMatchObject({ status: 'SUCCEEDED', amountMinor: 75_000n, feeMinor: 1_875n });
    });

    it('changes nothing on a pay-in that already SUCCEEDED (the ledger credited it once)', () => {
      spec.givenCommands(createIncoming(), assign(), confirm()).when(settle(140_000n)).thenNothingHappens();
    });

    it('answers a payout like a missing order', () => {
      spec.givenCommands(createOutgoing()).when(settle(100_000n)).thenThrows('ORDER_NOT_FOUND');
      noOrder.when(settle(100_000n)).thenThrows('ORDER_NOT_FOUND');
    });
  });

  describe('Creation events stored before metadata (version 2)', () => {
    it('read as orders without metadata or a return URL', () => {
      const codec = eventCodec(PAYMENT_ORDER_EVENT_SCHEMAS);
      const v2 = {
        merchantId: 'mch_1',
        orderId: 'A-1',
        amountMinor: '100',
        currency: 'RUB',
        country: 'RU',
        method: 'sbp',
        callbackUrl: 'https://shop.example/cb',
        feeMinor: '1',
        expiresAt: now.toISOString(),
        createdAt: now.toISOString(),
      };
      expect(codec.read({ type: 'IncomingPaymentCreated', schemaVersion: 2, data: { ...v2, payerPageTokenHash: 'h' } }).data).toEqual({
        ...v2,
        payerPageTokenHash: 'h',
        returnUrl: null,
        metadata: {},
      });
      const recipientAccount = { reference: 'acct_1', last4: '1111' };
      expect(codec.read({ type: 'OutgoingPaymentCreated', schemaVersion: 2, data: { ...v2, recipientAccount } }).data).toEqual({
        ...v2,
        recipientAccount,
        metadata: {},
      });
    });
  });
});
