import { mixPicker, W5_MIX } from './mix';

describe('workload mix', () => {
  it('gives each W5 operation exactly its share of evenly spaced draws', () => {
    const pick = mixPicker(W5_MIX);
    const counts = new Map<string, number>();
    for (let index = 0; index < 10_000; index += 1) {
      const operation = pick(index / 10_000);
      counts.set(operation, (counts.get(operation) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual({
      status: 4000,
      balances: 1000,
      list: 500,
      payIn: 2500,
      payout: 1000,
      withdrawal: 500,
      cancel: 300,
      disputeOpen: 200,
    });
  });

  it('maps the edges of each share to the right operation', () => {
    const pick = mixPicker([
      { operation: 'a', percent: 40 },
      { operation: 'b', percent: 60 },
    ]);
    expect([0, 0.3999, 0.4, 0.9999999].map(pick)).toEqual(['a', 'a', 'b', 'b']);
  });

  it('refuses a mix that does not add up to 100 whole percents, and draws outside [0, 1)', () => {
    expect(() => mixPicker([{ operation: 'a', percent: 99 }])).toThrow('adding up to 100; got 99');
    expect(() =>
      mixPicker([
        { operation: 'a', percent: 50.5 },
        { operation: 'b', percent: 49.5 },
      ]),
    ).toThrow('a: 50.5');
    expect(() =>
      mixPicker([
        { operation: 'a', percent: 110 },
        { operation: 'b', percent: -10 },
      ]),
    ).toThrow('b: -10');
    const pick = mixPicker([{ operation: 'a', percent: 100 }]);
    expect(() => pick(1)).toThrow('[0, 1)');
    expect(() => pick(Number.NaN)).toThrow('[0, 1)');
  });
});
