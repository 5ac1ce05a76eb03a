import { DomainError } from '@mp/shared-util-errors';
import { DEFAULT_METHOD_CATALOG } from './method-catalog';
import { decide, evolve, foldPaymentOrder, initialPaymentOrder, type CreateIncomingPayment } from './payment-order.decider';

const now = new Date('2026-11-22T10:00:00.000Z');

function createIncoming(overrides: Partial<CreateIncomingPayment['data']> = {}): CreateIncomingPayment {
  return {
    type: 'CreateIncomingPayment',
    data: { merchantId: 'mch_1', orderId: 'A-1', amountMinor: 150_000n, currency: 'RUB', country: 'RU', callbackUrl: 'https://shop.example/cb', ...overrides },
    metadata: { now, payerPageToken: 'tok_1', methodCatalog: DEFAULT_METHOD_CATALOG },
  };
}

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
    it('creates a pending incoming payment', () => {
      const events = decide(createIncoming(), initialPaymentOrder());
      expect(events).toEqual([
        {
          type: 'IncomingPaymentCreated',
          data: { merchantId: 'mch_1', orderId: 'A-1', amountMinor: '150000', currency: 'RUB', country: 'RU', callbackUrl: 'https://shop.example/cb', payerPageToken: 'tok_1', createdAt: now.toISOString() },
        },
      ]);
      const state = foldPaymentOrder(events);
      expect(state).toMatchObject({ status: 'PENDING', direction: 'incoming', amountMinor: 150_000n });
    });

    it('rejects a currency the catalog does not offer', () => {
      const error = thrownBy(() => decide(createIncoming({ currency: 'EUR', country: 'DE' }), initialPaymentOrder()));
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details).toEqual([{ field: 'currency', issue: expect.stringContaining('EUR') }]);
    });

    it('rejects a country not offered for the currency', () => {
      const error = thrownBy(() => decide(createIncoming({ country: 'KZ' }), initialPaymentOrder()));
      expect(error.details[0].field).toBe('country');
    });

    it('rejects amounts outside the method limits', () => {
      expect(thrownBy(() => decide(createIncoming({ amountMinor: 9_999n }), initialPaymentOrder())).details[0].field).toBe('amount');
      expect(thrownBy(() => decide(createIncoming({ amountMinor: 50_000_001n }), initialPaymentOrder())).details[0].field).toBe('amount');
    });
  });

  describe('When the order exists', () => {
    const existing = evolve(initialPaymentOrder(), decide(createIncoming(), initialPaymentOrder())[0]);

    it('returns no events for a retry with the same amount and currency', () => {
      expect(decide(createIncoming({ callbackUrl: 'https://other.example' }), existing)).toEqual([]);
    });

    it('rejects a different amount as DUPLICATE_ORDER', () => {
      expect(thrownBy(() => decide(createIncoming({ amountMinor: 150_001n }), existing)).code).toBe('DUPLICATE_ORDER');
    });

    it('rejects a different currency as DUPLICATE_ORDER', () => {
      expect(thrownBy(() => decide(createIncoming({ currency: 'INR', country: 'IN' }), existing)).code).toBe('DUPLICATE_ORDER');
    });

    it('does not consult the catalog for a retry, so a later catalog change cannot break it', () => {
      const retry = { ...createIncoming(), metadata: { now, payerPageToken: 'tok_2', methodCatalog: [] } };
      expect(decide(retry, existing)).toEqual([]);
    });
  });
});
