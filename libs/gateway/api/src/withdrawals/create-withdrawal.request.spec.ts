import type { WithdrawalAssetView } from '@mp/contracts-withdrawals';
import { DomainError } from '@mp/shared-util-errors';
import { parseJsonObjectBody } from '../http/json-body';
import { toRequestWithdrawalData } from './create-withdrawal.request';

const ASSETS: WithdrawalAssetView[] = [
  { code: 'USDT-TRC20', network: 'TRON', balance_asset: 'USDT', min_amount: '10.000000', network_fee: '1.000000' },
  { code: 'BTC', network: 'BITCOIN', balance_asset: 'BTC', min_amount: '0.00010000', network_fee: '0.00005000' },
];
const parse = (json: string) => toRequestWithdrawalData('mch_1', parseJsonObjectBody(Buffer.from(json)), ASSETS);

function fieldsOf(json: string): string[] {
  try {
    parse(json);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'VALIDATION_ERROR') return error.details.map((detail) => detail.field).sort();
    throw error;
  }
  throw new Error('expected VALIDATION_ERROR');
}

describe('endpoint 11 body', () => {
  it("reads the amount exactly, in the asset's balance currency scale", () => {
    expect(parse('{"order_id":"W-1","amount":999999999999.123456,"currency":"USDT-TRC20","address":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"}')).toEqual({
      merchantId: 'mch_1',
      orderId: 'W-1',
      amountMinor: '999999999999123456',
      currency: 'USDT-TRC20',
      address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    });
    expect(parse('{"order_id":"W-2","amount":0.00012345,"currency":"BTC","address":"x"}').amountMinor).toBe('12345');
  });

  it('names every bad field at once', () => {
    expect(fieldsOf('{"order_id":"bad id","amount":"15","currency":"DOGE","address":7,"memo":1}')).toEqual(['address', 'amount', 'currency', 'memo', 'order_id']);
    expect(fieldsOf('{}')).toEqual(['address', 'amount', 'currency', 'order_id']);
    expect(fieldsOf('{"order_id":"W-3","amount":1.1234567,"currency":"USDT-TRC20","address":"x"}')).toEqual(['amount']);
    expect(fieldsOf('{"order_id":"W-4","amount":-5,"currency":"USDT-TRC20","address":"x"}')).toEqual(['amount']);
  });
});
