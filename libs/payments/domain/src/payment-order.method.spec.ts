import { DEFAULT_METHOD_CATALOG, type MethodEntry } from './method-catalog';
import { decide, evolve, initialPaymentOrder, type CreateIncomingPayment, type PaymentOrder } from './payment-order.decider';

/** Spec section 1 rule 7 and decisions.md: a pay-in may name its method; without one, the documented default. */
const now = new Date('2026-11-22T10:00:00.000Z');

function createIncoming(overrides: Partial<CreateIncomingPayment['data']> = {}, methodCatalog: readonly MethodEntry[] = DEFAULT_METHOD_CATALOG): CreateIncomingPayment {
  return {
    type: 'CreateIncomingPayment',
    data: { merchantId: 'mch_1', orderId: 'A-1', amountMinor: 150_000n, currency: 'RUB', country: 'RU', callbackUrl: 'https://shop.example/cb', ...overrides },
    metadata: { now, payerPageToken: 'tok_1', methodCatalog },
  };
}

function created(command: CreateIncomingPayment): PaymentOrder {
  return decide(command, initialPaymentOrder()).reduce(evolve, initialPaymentOrder());
}

const rejection = (code: string, field?: string) => expect.objectContaining({ code, ...(field ? { details: [expect.objectContaining({ field })] } : {}) });

describe('the method of a pay-in', () => {
  it('is the one the merchant names, with its fee (sbp 2 % rather than bank_card 2.5 %)', () => {
    expect(created(createIncoming({ method: 'sbp' }))).toMatchObject({ method: 'sbp', feeMinor: 3_000n });
  });

  it('defaults to the first incoming entry in catalog order whose limits admit the amount', () => {
    expect(created(createIncoming())).toMatchObject({ method: 'bank_card', feeMinor: 3_750n });
    const sbpFirstWithLowMinimum: MethodEntry[] = [
      { ...DEFAULT_METHOD_CATALOG[1], minAmountMinor: 200_000n },
      DEFAULT_METHOD_CATALOG[0],
    ];
    expect(created(createIncoming({}, sbpFirstWithLowMinimum))).toMatchObject({ method: 'bank_card' });
    expect(created(createIncoming({ amountMinor: 200_000n }, sbpFirstWithLowMinimum))).toMatchObject({ method: 'sbp' });
  });

  it('refuses a method not offered for the direction, country and currency, naming the field method', () => {
    for (const method of ['upi', 'bank_transfer', 'crypto']) {
      expect(() => decide(createIncoming({ method }), initialPaymentOrder())).toThrow(rejection('VALIDATION_ERROR', 'method'));
    }
  });

  it("applies the named method's own limits", () => {
    const narrowSbp: MethodEntry[] = [DEFAULT_METHOD_CATALOG[0], { ...DEFAULT_METHOD_CATALOG[1], maxAmountMinor: 100_000n }];
    expect(() => decide(createIncoming({ method: 'sbp' }, narrowSbp), initialPaymentOrder())).toThrow(rejection('VALIDATION_ERROR', 'amount'));
  });

  it('makes a retry with another method DUPLICATE_ORDER; a retry naming no method or the same one returns the order', () => {
    const chosen = created(createIncoming({ method: 'sbp' }));
    expect(() => decide(createIncoming({ method: 'bank_card' }), chosen)).toThrow(rejection('DUPLICATE_ORDER'));
    expect(decide(createIncoming({ method: 'sbp' }), chosen)).toEqual([]);
    expect(decide(createIncoming(), chosen)).toEqual([]);

    const defaulted = created(createIncoming());
    expect(decide(createIncoming({ method: 'bank_card' }), defaulted)).toEqual([]);
    expect(() => decide(createIncoming({ method: 'sbp' }), defaulted)).toThrow(rejection('DUPLICATE_ORDER'));
  });
});
