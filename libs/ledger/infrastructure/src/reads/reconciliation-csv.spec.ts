import { csvField, csvRecord, reconciliationHeader, reconciliationRecord } from './reconciliation-csv';

describe('reconciliation CSV (RFC 4180)', () => {
  it('quotes only fields that need it, doubling inner quotes', () => {
    expect(csvField('plain-value_1.5')).toBe('plain-value_1.5');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('')).toBe('');
    expect(csvField('-5.00')).toBe('-5.00');
  });

  it('ends every record with CRLF and starts with a header', () => {
    expect(csvRecord(['a', 'b,c'])).toBe('a,"b,c"\r\n');
    expect(reconciliationHeader()).toBe(
      'recorded_at,merchant_id,currency,posting_id,code,debit_account,credit_account,amount_minor,amount,reference_kind,reference_id,event_id,memo\r\n',
    );
  });

  it('writes a posting with its amount in minor units and in the currency’s scale', () => {
    const record = reconciliationRecord({
      merchant_id: 'mch_1',
      currency: 'KWD',
      posting_id: 'deposit:ADJ-1',
      debit_account: 'deposit',
      credit_account: 'clearing',
      amount_minor: '1500',
      code: 'DEPOSIT_ADJUSTMENT',
      reference_kind: 'deposit_adjustment',
      reference_id: 'ADJ-1',
      event_id: '6f1c2a4e-0000-4000-8000-000000000001',
      memo: 'fine, "late"',
      recorded_at: new Date('2026-01-02T03:04:05.678Z'),
      position: '9',
    });
    expect(record).toBe(
      '2026-01-02T03:04:05.678Z,mch_1,KWD,deposit:ADJ-1,DEPOSIT_ADJUSTMENT,deposit,clearing,1500,1.500,deposit_adjustment,ADJ-1,6f1c2a4e-0000-4000-8000-000000000001,"fine, ""late"""\r\n',
    );
  });
});
