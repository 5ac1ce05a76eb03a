import { RequestPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { CreateWithdrawalBody, toRequestWithdrawalData } from './create-withdrawal.request';

const pipe = new RequestPipe();
/** As the controller runs it: the shared request pipe on the raw body. */
const parse = async (json: string) => toRequestWithdrawalData('mch_1', await pipe.validateAs(CreateWithdrawalBody, Buffer.from(json)));

async function fieldsOf(json: string): Promise<string[]> {
  try {
    await parse(json);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'VALIDATION_ERROR') return error.details.map((detail) => detail.field).sort();
    throw error;
  }
  throw new Error('expected VALIDATION_ERROR');
}

describe('endpoint 11 body', () => {
  it("reads the amount exactly, in the asset's balance currency scale", async () => {
    expect(await parse('{"order_id":"W-1","amount":999999999999.123456,"currency":"USDT-TRC20","address":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"}')).toEqual({
      merchantId: 'mch_1',
      orderId: 'W-1',
      amountMinor: '999999999999123456',
      currency: 'USDT-TRC20',
      address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    });
    expect((await parse('{"order_id":"W-2","amount":0.00012345,"currency":"BTC","address":"x"}')).amountMinor).toBe('12345');
  });

  it('names every bad field at once', async () => {
    expect(await fieldsOf('{"order_id":"bad id","amount":"15","currency":"DOGE","address":7,"memo":1}')).toEqual([
      'address',
      'amount',
      'currency',
      'memo',
      'order_id',
    ]);
    expect(await fieldsOf('{}')).toEqual(['address', 'amount', 'currency', 'order_id']);
    expect(await fieldsOf('{"order_id":"W-3","amount":1.1234567,"currency":"USDT-TRC20","address":"x"}')).toEqual(['amount']);
    expect(await fieldsOf('{"order_id":"W-4","amount":-5,"currency":"USDT-TRC20","address":"x"}')).toEqual(['amount']);
  });

  it('refuses an address longer than any network has, as the description says, before the withdrawals service reads it', async () => {
    const body = (address: string) => JSON.stringify({ order_id: 'W-5', amount: 15, currency: 'USDT-TRC20', address });
    expect((await parse(body('T'.repeat(100)))).address).toHaveLength(100);
    expect(await fieldsOf(body('T'.repeat(101)))).toEqual(['address']);
  });
});
