import { dailySettlementChange, parseCsv } from './csv';

const HEADER =
  'entry_id,recorded_at,entry_type,debit_account,credit_account,amount_minor,currency,currency_exponent,fee_minor,available_change_minor,frozen_change_minor,deposit_change_minor,reference_kind,reference_id,order_direction,order_status,order_amount_minor,order_fee_minor';

describe('parseCsv', () => {
  it('reads RFC 4180: CRLF, quoted fields with commas, quotes and line breaks', () => {
    expect(parseCsv('a,b,c\r\n"x,1","say ""hi""","two\r\nlines"\r\n')).toEqual([
      ['a', 'b', 'c'],
      ['x,1', 'say "hi"', 'two\r\nlines'],
    ]);
  });

  it('keeps empty fields and a last line without a line break', () => {
    expect(parseCsv('a,,c\r\n,,')).toEqual([
      ['a', '', 'c'],
      ['', '', ''],
    ]);
    expect(parseCsv('')).toEqual([]);
  });

  it('refuses an unterminated quote', () => {
    expect(() => parseCsv('"abc')).toThrow('unterminated quoted field');
  });
});

describe('dailySettlementChange', () => {
  it('sums the available and frozen changes of a day exactly, as bigint minor units', () => {
    const csv = [
      HEADER,
      'e1,2026-01-31T10:00:00.000Z,PAYIN_SETTLED,clearing,settlement_available,97954,RUB,2,0,97954,0,0,payment_order,"A,1",incoming,SUCCEEDED,100055,2101',
      'e2,2026-01-31T11:00:00.000Z,HOLD_PLACED,settlement_available,settlement_frozen,5000,RUB,2,0,-5000,5000,0,payment_order,P-1,outgoing,PENDING,4900,100',
      'e3,2026-01-31T12:00:00.000Z,DEPOSIT_TOP_UP,clearing,deposit,9007199254740993,RUB,2,0,0,0,9007199254740993,deposit_adjustment,adj,,,,',
      'e4,2026-01-31T13:00:00.000Z,PAYIN_SETTLED,clearing,settlement_available,9007199254740993,RUB,2,0,9007199254740993,0,0,payment_order,A-2,incoming,SUCCEEDED,1,0',
    ].join('\r\n');
    expect(dailySettlementChange(csv)).toBe(97954n + 9007199254740993n);
  });

  it('is zero for a day with the header row alone, and refuses a CSV without the columns', () => {
    expect(dailySettlementChange(`${HEADER}\r\n`)).toBe(0n);
    expect(() => dailySettlementChange('entry_id\r\ne1\r\n')).toThrow('available_change_minor');
  });
});
