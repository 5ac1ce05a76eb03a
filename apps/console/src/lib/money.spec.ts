import { decimalToMinor, formatMoney, formatMoneyDecimal, jsonWithDecimals, parseJsonKeepingMoney, scaleOf } from './money';

describe('scaleOf', () => {
  it('reads the platform table, and a withdrawal asset code by its balance asset', () => {
    expect(scaleOf('RUB')).toBe(2);
    expect(scaleOf('JPY')).toBe(0);
    expect(scaleOf('KWD')).toBe(3);
    expect(scaleOf('USDT')).toBe(6);
    expect(scaleOf('USDT-ERC20')).toBe(6);
    expect(scaleOf('ETH')).toBe(18);
  });

  it('refuses a currency it does not know rather than guessing two decimals', () => {
    expect(() => scaleOf('XXX')).toThrow('unknown currency XXX');
  });
});

describe('decimalToMinor', () => {
  it('converts the API decimal text exactly, padding to the scale', () => {
    expect(decimalToMinor('1500.50', 'RUB')).toBe(150050n);
    expect(decimalToMinor('1500.5', 'RUB')).toBe(150050n);
    expect(decimalToMinor('0.00', 'USD')).toBe(0n);
    expect(decimalToMinor('-12.07', 'USD')).toBe(-1207n);
    expect(decimalToMinor('15', 'JPY')).toBe(15n);
  });

  it('keeps every digit a double would lose', () => {
    expect(decimalToMinor('999999999999.123456', 'USDT')).toBe(999999999999123456n);
    expect(decimalToMinor('0.000000000000000001', 'ETH')).toBe(1n);
  });

  it('accepts an exponent and refuses more decimals than the currency has', () => {
    expect(decimalToMinor('1.5e2', 'USD')).toBe(15000n);
    expect(() => decimalToMinor('1.005', 'USD')).toThrow('more decimals than USD has');
    expect(() => decimalToMinor('abc', 'USD')).toThrow('not a decimal');
  });
});

describe('formatMoney', () => {
  it('formats fiat from minor units with the currency sign', () => {
    expect(formatMoney(150050n, 'USD', 'en-US')).toBe('$1,500.50');
    expect(formatMoney(-1207n, 'USD', 'en-US')).toBe('-$12.07');
    expect(formatMoney(1500n, 'JPY', 'en-US')).toBe('¥1,500');
    expect(formatMoney(1234567n, 'KWD', 'en-US')).toBe('KWD\u00a01,234.567');
  });

  it('writes RUB with all its decimals', () => {
    expect(formatMoney(150050n, 'RUB', 'en-US')).toBe('RUB\u00a01,500.50');
  });

  it('formats crypto assets with their own decimals and code, exactly', () => {
    expect(formatMoney(999999999999123456n, 'USDT', 'en-US')).toBe('999,999,999,999.123456 USDT');
    expect(formatMoney(20000000n, 'USDT-ERC20', 'en-US')).toBe('20.000000 USDT-ERC20');
    expect(formatMoney(1n, 'ETH', 'en-US')).toBe('0.000000000000000001 ETH');
  });

  it('formats an API decimal through minor units', () => {
    expect(formatMoneyDecimal('18435.00', 'USD', 'en-US')).toBe('$18,435.00');
  });
});

describe('parseJsonKeepingMoney', () => {
  it('keeps money fields as their literal text, wherever they are', () => {
    const text = '{"data":[{"amount": 999999999999.123456,"fee":0.10,"count":3}],"settlement":[{"available":18435.00,"frozen":-1}]}';
    const parsed = parseJsonKeepingMoney(text) as any;
    expect(parsed.data[0].amount).toBe('999999999999.123456');
    expect(parsed.data[0].fee).toBe('0.10');
    expect(parsed.data[0].count).toBe(3);
    expect(parsed.settlement[0].available).toBe('18435.00');
    expect(parsed.settlement[0].frozen).toBe('-1');
  });

  it('leaves a money-like key inside a string alone', () => {
    const text = JSON.stringify({ comment: '"amount": 5', amount: null });
    expect(parseJsonKeepingMoney(text)).toEqual({ comment: '"amount": 5', amount: null });
  });
});

describe('jsonWithDecimals', () => {
  it('writes each amount as a JSON number with exactly the digits typed', () => {
    expect(jsonWithDecimals({ currency: 'USDT', reason: 'top-up' }, { amount: '999999999999.123456' })).toBe(
      '{"currency":"USDT","reason":"top-up","amount":999999999999.123456}',
    );
    expect(jsonWithDecimals({}, { amount: '-5.10' })).toBe('{"amount":-5.10}');
  });

  it('refuses text that is not a plain decimal, so nothing else can be injected into the body', () => {
    expect(() => jsonWithDecimals({}, { amount: '1,"x":2' })).toThrow('amount');
    expect(() => jsonWithDecimals({}, { amount: '1e5' })).toThrow('amount');
  });
});
