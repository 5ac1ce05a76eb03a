import { DomainError } from '@mp/shared-util-errors';
import { IsDecimalAmount, IsKnownCurrency, IsOrderId, IsPlainText, JsonNumberLiteral, MatchesPattern, RequestMessages } from '@mp/shared-util-validation';
import { Type } from 'class-transformer';
import { IsOptional, ValidateNested } from 'class-validator';
import { OrderIdParam, RequestOptions, RequestPipe } from '../index';

class Line {
  @MatchesPattern(/^[a-z]+$/, 'must be lower-case letters')
  code!: string;
}

@RequestMessages({ invalid: 'The sample is not valid', unknownField: 'is not a sample field' })
class Sample {
  @IsOrderId()
  order_id!: string;

  @IsDecimalAmount('currency')
  amount!: JsonNumberLiteral;

  @IsKnownCurrency()
  currency!: string;

  @IsOptional()
  @IsPlainText(10)
  note?: string;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => Line)
  lines?: Line[];
}

const pipe = new RequestPipe();
const asSample = (body: string | object) => pipe.transform(typeof body === 'string' ? Buffer.from(body) : body, { type: 'body', metatype: Sample });

async function rejection(body: string | object): Promise<DomainError> {
  try {
    await asSample(body);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a VALIDATION_ERROR');
}

describe('RequestPipe', () => {
  it('reads a raw body into the request class, keeping the amount exactly as written', async () => {
    const sample = (await asSample('{"order_id":"A-1","amount":999999999999.123456,"currency":"USDT"}')) as Sample;
    expect(sample).toBeInstanceOf(Sample);
    expect(sample.amount).toBeInstanceOf(JsonNumberLiteral);
    expect(sample.amount.literal).toBe('999999999999.123456');
  });

  it('names every bad, missing and unknown field at once, with the class messages', async () => {
    const error = await rejection('{"order_id":"a\\u0000b","amount":"10","note":"x\\u0000","extra":1,"lines":[{"code":"ok"},{"code":"NO"}]}');
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe('The sample is not valid');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { field: 'order_id', issue: 'must be 1 to 64 characters from A-Z a-z 0-9 . _ - : /' },
        { field: 'amount', issue: 'must be a JSON number, e.g. 1500.00' },
        { field: 'currency', issue: 'is required' },
        { field: 'note', issue: 'must be 1 to 10 characters' },
        { field: 'extra', issue: 'is not a sample field' },
        { field: 'lines[1].code', issue: 'must be lower-case letters' },
      ]),
    );
    expect(error.details).toHaveLength(6);
  });

  it('checks amounts against the currency and leaves an unknown currency to its own field', async () => {
    expect((await rejection('{"order_id":"A","amount":1.001,"currency":"RUB"}')).details).toEqual([
      { field: 'amount', issue: 'has more decimals than the currency allows' },
    ]);
    expect((await rejection('{"order_id":"A","amount":1,"currency":"XXX"}')).details).toEqual([
      { field: 'currency', issue: 'XXX is not a supported currency' },
    ]);
  });

  it('refuses a key given twice, bodies that are not objects, and empty bodies, naming the body', async () => {
    for (const body of ['{"order_id":"A","order_id":"B"}', '[1]', '"x"', 'null', '{"order_id":', '']) {
      expect((await rejection(body)).details.map((detail) => detail.field)).toEqual(['body']);
    }
  });

  it('validates already parsed values too (internal APIs, message payloads), without converting types', async () => {
    expect((await rejection({ order_id: 12345, amount: new JsonNumberLiteral('1'), currency: 'RUB' })).details.map((detail) => detail.field)).toEqual([
      'order_id',
    ]);
    await expect(pipe.validateAs(Sample, { order_id: 'A', amount: new JsonNumberLiteral('1'), currency: 'RUB' })).resolves.toBeInstanceOf(Sample);
  });

  it('refuses fields named like members of Object.prototype as unknown, at any depth', async () => {
    const valid = '"order_id": "A-1", "amount": 10, "currency": "RUB"';
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const error = await rejection(`{${valid}, ${JSON.stringify(name)}: 1}`);
      expect([error.message, error.details]).toEqual(['The sample is not valid', [{ field: name, issue: 'is not a sample field' }]]);
      expect((await rejection(`{${valid}, "lines": [{"code": "a", ${JSON.stringify(name)}: {}}]}`)).details.map((detail) => detail.field)).toEqual([
        `lines[0].${name}`,
      ]);
    }
  });

  it('passes a value a pipe before it already read (a global pipe) unchanged, instead of reading it twice', async () => {
    const read = await asSample('{"order_id": "A-1", "amount": 10, "currency": "RUB"}');
    expect(read).toBeInstanceOf(Sample);
    expect(await pipe.transform(read, { type: 'body', metatype: Sample })).toBe(read);
  });

  it("follows a class's own @RequestOptions over the pipe's", async () => {
    @RequestOptions({ emptyBodyIsEmptyObject: true, numbers: 'plain' })
    class OptionalPlain {
      @IsOptional()
      count?: number;
    }
    class Optional extends OptionalPlain {}
    expect(await pipe.transform(Buffer.alloc(0), { type: 'body', metatype: Optional })).toEqual({});
    expect((await pipe.transform(Buffer.from('{"count": 3}'), { type: 'body', metatype: Optional })) as Optional).toEqual({ count: 3 });
    await expect(pipe.transform(Buffer.alloc(0), { type: 'body', metatype: Sample })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('answers a malformed path id like an unknown one', () => {
    expect(() => OrderIdParam.transform('a\u0000b')).toThrow(expect.objectContaining({ code: 'ORDER_NOT_FOUND' }));
    expect(OrderIdParam.transform('A-1')).toBe('A-1');
  });
});
