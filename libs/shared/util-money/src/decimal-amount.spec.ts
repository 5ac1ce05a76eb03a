import { formatAmountMinor, parseAmountLiteral } from './decimal-amount';

describe('parseAmountLiteral', () => {
  it.each([
    ['10', 'USD', 1000n],
    ['10.5', 'USD', 1050n],
    ['10.50', 'USD', 1050n],
    ['10.500', 'USD', 1050n],
    ['0.01', 'USD', 1n],
    ['1E2', 'USD', 10000n],
    ['1.5e1', 'USD', 1500n],
    ['1500', 'JPY', 1500n],
    ['999999999999.123456', 'USDT', 999999999999123456n],
    ['1000000000000', 'USD', 100000000000000n],
  ])('accepts %s %s as %s minor units', (literal, currency, expected) => {
    expect(parseAmountLiteral(literal, currency)).toEqual({ ok: true, amountMinor: expected });
  });

  it.each([
    ['0', 'USD', 'not_positive'],
    ['-1', 'USD', 'not_positive'],
    ['-0', 'USD', 'not_positive'],
    ['0.001', 'USD', 'too_many_decimals'],
    ['1e-7', 'USDT', 'too_many_decimals'],
    ['10.5', 'JPY', 'too_many_decimals'],
    ['1e309', 'USD', 'too_large'],
    ['9007199254740993', 'USD', 'too_large'],
    ['1000000000000.01', 'USD', 'too_large'],
    ['1e99999999999', 'USD', 'too_large'],
    ['01', 'USD', 'not_a_number'],
    ['"10.00"', 'USD', 'not_a_number'],
    ['NaN', 'USD', 'not_a_number'],
    ['', 'USD', 'not_a_number'],
  ])('rejects %s %s as %s', (literal, currency, reason) => {
    expect(parseAmountLiteral(literal, currency)).toEqual({ ok: false, reason });
  });
});

describe('formatAmountMinor', () => {
  it.each([
    [1050n, 'USD', '10.50'],
    [1n, 'USD', '0.01'],
    [1500n, 'JPY', '1500'],
    [999999999999123456n, 'USDT', '999999999999.123456'],
    [-5n, 'USD', '-0.05'],
  ])('formats %s %s as %s', (minor, currency, expected) => {
    expect(formatAmountMinor(minor, currency)).toBe(expected);
  });
});
