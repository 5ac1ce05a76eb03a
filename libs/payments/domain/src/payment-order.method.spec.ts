import { DeciderSpecification } from '@mp/shared-decider';
import { DEFAULT_METHOD_CATALOG, type MethodEntry } from './method-catalog';
import { paymentOrderDecider, type CreateIncomingPayment } from './payment-order.decider';

/** docs/api/endpoints.md: a pay-in may name its method; without one, the documented default. */
const now = new Date('2026-11-22T10:00:00.000Z');
const spec = DeciderSpecification.for(paymentOrderDecider);
const noOrder = spec.givenCommands();

function createIncoming(
  overrides: Partial<CreateIncomingPayment['data']> = {},
  methodCatalog: readonly MethodEntry[] = DEFAULT_METHOD_CATALOG,
): CreateIncomingPayment {
  return {
    type: 'CreateIncomingPayment',
    data: { merchantId: 'mch_1', orderId: 'A-1', amountMinor: 150_000n, currency: 'RUB', country: 'RU', callbackUrl: 'https://shop.example/cb', ...overrides },
    metadata: { now, payerPageTokenHash: 'hash_1', methodCatalog },
  };
}

describe('the method of a pay-in', () => {
  it('is the one the merchant names, with its fee (sbp 2 % rather than bank_card 2.5 %)', () => {
    expect(spec.givenCommands(createIncoming({ method: 'sbp' })).state()).toMatchObject({ method: 'sbp', feeMinor: 3_000n });
  });

  it('defaults to the first incoming entry in catalog order whose limits admit the amount', () => {
    expect(spec.givenCommands(createIncoming()).state()).toMatchObject({ method: 'bank_card', feeMinor: 3_750n });
    const sbpFirstWithLowMinimum: MethodEntry[] = [{ ...DEFAULT_METHOD_CATALOG[1], minAmountMinor: 200_000n }, DEFAULT_METHOD_CATALOG[0]];
    expect(spec.givenCommands(createIncoming({}, sbpFirstWithLowMinimum)).state()).toMatchObject({ method: 'bank_card' });
    expect(spec.givenCommands(createIncoming({ amountMinor: 200_000n }, sbpFirstWithLowMinimum)).state()).toMatchObject({ method: 'sbp' });
  });

  it('refuses a method not offered for the direction, country and currency, naming the field method', () => {
    for (const method of ['upi', 'bank_transfer', 'crypto']) noOrder.when(createIncoming({ method })).thenThrows('VALIDATION_ERROR', 'method');
  });

  it("applies the named method's own limits", () => {
    const narrowSbp: MethodEntry[] = [DEFAULT_METHOD_CATALOG[0], { ...DEFAULT_METHOD_CATALOG[1], maxAmountMinor: 100_000n }];
    noOrder.when(createIncoming({ method: 'sbp' }, narrowSbp)).thenThrows('VALIDATION_ERROR', 'amount');
  });

  it('makes a retry with another method DUPLICATE_ORDER; a retry naming no method or the same one returns the order', () => {
    const chosen = spec.givenCommands(createIncoming({ method: 'sbp' }));
    chosen.when(createIncoming({ method: 'bank_card' })).thenThrows('DUPLICATE_ORDER');
    chosen.when(createIncoming({ method: 'sbp' })).thenNothingHappens();
    chosen.when(createIncoming()).thenNothingHappens();

    const defaulted = spec.givenCommands(createIncoming());
    defaulted.when(createIncoming({ method: 'bank_card' })).thenNothingHappens();
    defaulted.when(createIncoming({ method: 'sbp' })).thenThrows('DUPLICATE_ORDER');
  });
});
