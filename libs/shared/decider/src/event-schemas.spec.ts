import { eventCodec, UnreadableEventError, type EventSchemas } from './event-schemas';

/** A toy stream whose Deposited event changed twice: v0 had `cents` as a number, v1 `amount` as a number, v2 `amountMinor` as a string. */
type ToyEvent = { type: 'Deposited'; data: { amountMinor: string; currency: string } } | { type: 'Closed'; data: { reason: string } };

const schemas: EventSchemas<ToyEvent> = {
  Deposited: {
    version: 2,
    upcasters: {
      0: (data: { cents: number }) => ({ amount: data.cents, currency: 'USD' }),
      1: (data: { amount: number; currency: string }) => ({ amountMinor: String(data.amount), currency: data.currency }),
    },
  },
  Closed: { version: 1 },
};
const codec = eventCodec(schemas);

describe('event codec', () => {
  it('upcasts a v0 event through every version to the current shape', () => {
    expect(codec.read({ type: 'Deposited', schemaVersion: 0, data: { cents: 1250 } })).toEqual({
      type: 'Deposited',
      data: { amountMinor: '1250', currency: 'USD' },
    });
  });

  it('upcasts a v1 event by the remaining upcaster only', () => {
    expect(codec.read({ type: 'Deposited', schemaVersion: 1, data: { amount: 7, currency: 'EUR' } })).toEqual({
      type: 'Deposited',
      data: { amountMinor: '7', currency: 'EUR' },
    });
  });

  it('reads a current event unchanged', () => {
    const data = { amountMinor: '5', currency: 'RUB' };
    expect(codec.read({ type: 'Deposited', schemaVersion: 2, data })).toEqual({ type: 'Deposited', data });
  });

  it('refuses an unknown type, a version from a newer release and a missing upcaster', () => {
    expect(() => codec.read({ type: 'Withdrawn', schemaVersion: 1, data: {} })).toThrow(UnreadableEventError);
    expect(() => codec.read({ type: 'toString', schemaVersion: 1, data: {} })).toThrow('unknown event type toString');
    expect(() => codec.read({ type: 'Deposited', schemaVersion: 3, data: {} })).toThrow('newer than 2');
    expect(() => codec.read({ type: 'Closed', schemaVersion: 0, data: {} })).toThrow('no upcaster from version 0');
  });

  it('names the version new events are written with', () => {
    expect(codec.versionOf('Deposited')).toBe(2);
    expect(codec.versionOf('Closed')).toBe(1);
  });
});
