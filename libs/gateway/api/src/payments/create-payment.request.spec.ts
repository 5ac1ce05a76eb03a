import { RequestPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import type { DataSource } from 'typeorm';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';
import type { GatewaySettings } from '../gateway-settings';
import {
  callbackUrlGroup,
  CreateIncomingPaymentBody,
  CreateOutgoingPaymentBody,
  toCreateIncomingPaymentData,
  toCreateOutgoingPaymentData,
} from './create-payment.request';

const pipe = new RequestPipe();
const payIn = { order_id: 'A-1', amount: 100, currency: 'RUB', country: 'RU', callback_url: 'https://shop.example/cb' };
const payout = { ...payIn, order_id: 'P-1', method: 'bank_card', account_number: '4111 1111 1111 1111' };

/** The VALIDATION_ERROR details of a pay-in body, or [] when it passes. */
async function detailsOf(
  body: unknown,
  type: typeof CreateIncomingPaymentBody | typeof CreateOutgoingPaymentBody = CreateIncomingPaymentBody,
): Promise<Array<{ field: string; issue: string }>> {
  try {
    await pipe.validateAs(type, Buffer.from(JSON.stringify(body)));
    return [];
  } catch (error) {
    if (error instanceof DomainError && error.code === 'VALIDATION_ERROR') return error.details as Array<{ field: string; issue: string }>;
    throw error;
  }
}

const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 'v']));

describe('metadata on pay-in and payout bodies', () => {
  it('takes up to 20 keys of up to 40 characters with string values of up to 500, and hands them to the command', async () => {
    const metadata = { ...keys(19), ['k'.repeat(40)]: 'v'.repeat(500) };
    expect(await detailsOf({ ...payIn, metadata })).toEqual([]);
    expect(await detailsOf({ ...payIn, metadata: {} })).toEqual([]);
    const body = await pipe.validateAs(CreateIncomingPaymentBody, Buffer.from(JSON.stringify({ ...payIn, metadata: { cart_id: 'C-1' } })));
    expect(toCreateIncomingPaymentData('mch_1', body).metadata).toEqual({ cart_id: 'C-1' });
    expect(toCreateIncomingPaymentData('mch_1', await pipe.validateAs(CreateIncomingPaymentBody, Buffer.from(JSON.stringify(payIn))))).not.toHaveProperty(
      'metadata',
    );
    const payoutBody = await pipe.validateAs(CreateOutgoingPaymentBody, Buffer.from(JSON.stringify({ ...payout, metadata: { invoice: 'I-1' } })));
    expect(toCreateOutgoingPaymentData('mch_1', payoutBody).metadata).toEqual({ invoice: 'I-1' });
  });

  it.each([
    ['21 keys', keys(21), 'must have at most 20 keys, got 21'],
    ['a 41-character key', { ['k'.repeat(41)]: 'v' }, `key "${'k'.repeat(40)}…" must be 1 to 40 characters`],
    ['an empty key', { '': 'v' }, 'key "" must be 1 to 40 characters'],
    ['a 501-character value', { note: 'v'.repeat(501) }, 'key "note" must have a value of at most 500 characters'],
    ['a number value', { count: 3 }, 'key "count" must have a string value'],
    ['a null value', { gone: null }, 'key "gone" must have a string value'],
    ['an object value', { nested: { a: 'b' } }, 'key "nested" must have a string value'],
    ['a NUL character', { note: 'a\u0000b' }, 'key "note" must have a value of at most 500 characters'],
    ['an array', ['a'], 'must be an object whose values are strings'],
    ['a string', 'cart C-1', 'must be an object whose values are strings'],
    ['a number', 7, 'must be an object whose values are strings'],
  ])('refuses %s with VALIDATION_ERROR on metadata, naming the key', async (_case, metadata, issue) => {
    for (const [body, type] of [
      [payIn, CreateIncomingPaymentBody],
      [payout, CreateOutgoingPaymentBody],
    ] as const) {
      const details = await detailsOf({ ...body, metadata }, type);
      expect(details).toEqual([{ field: 'metadata', issue: expect.stringContaining(issue) }]);
    }
  });

  it('refuses a key named like an Object.prototype member as an unknown field', async () => {
    expect(
      (
        await detailsOf(
          JSON.parse('{"order_id":"A-1","amount":100,"currency":"RUB","country":"RU","callback_url":"https://shop.example/cb","metadata":{"constructor":"x"}}'),
        )
      ).map((detail) => detail.field),
    ).toEqual(['metadata.constructor']);
  });
});

describe('return_url on pay-in bodies', () => {
  it('is optional and reaches the command when sent', async () => {
    const body = await pipe.validateAs(CreateIncomingPaymentBody, Buffer.from(JSON.stringify({ ...payIn, return_url: 'https://shop.example/back' })));
    expect(toCreateIncomingPaymentData('mch_1', body).returnUrl).toBe('https://shop.example/back');
  });

  it('is held to the callback URL shape: absolute, https only unless the gateway allows http (production mode refuses http)', async () => {
    const productionPipe = new RequestPipe({ groups: [callbackUrlGroup(false)] });
    const developmentPipe = new RequestPipe({ groups: [callbackUrlGroup(true)] });
    const httpBody = Buffer.from(JSON.stringify({ ...payIn, return_url: 'http://shop.example/back' }));
    await expect(productionPipe.validateAs(CreateIncomingPaymentBody, httpBody)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'return_url', issue: 'must use https://' }],
    });
    await expect(developmentPipe.validateAs(CreateIncomingPaymentBody, httpBody)).resolves.toMatchObject({ return_url: 'http://shop.example/back' });
    expect((await detailsOf({ ...payIn, return_url: 'not a url' })).map((detail) => detail.field)).toEqual(['return_url']);
    expect((await detailsOf({ ...payIn, return_url: 'javascript:alert(1)' })).map((detail) => detail.field)).toEqual(['return_url']);
    expect(await detailsOf({ ...payout, return_url: 'https://shop.example/back' }, CreateOutgoingPaymentBody)).toEqual([
      { field: 'return_url', issue: expect.any(String) },
    ]);
  });
});

describe("return_url destination policy (the callback URLs' own)", () => {
  const allowLists: Record<string, string[]> = { mer_listed: ['shop.example'] };
  const dataSource = {
    query: async (_sql: string, [merchantId]: string[]) =>
      allowLists[merchantId] ? [{ entries: allowLists[merchantId], updated_at: new Date(0), updated_by: 'op' }] : [],
  } as unknown as DataSource;
  const policy = (allowHttpCallbackUrls: boolean) =>
    new CallbackDestinationPolicy(
      {
        allowHttpCallbackUrls,
        callbackAllowedPorts: [
          [80, 80],
          [443, 443],
        ],
        credentialCacheTtlMs: 0,
      } as unknown as GatewaySettings,
      dataSource,
    );
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => (error instanceof DomainError ? [error.code, error.details] : error),
    );

  it("refuses a host missing from the merchant's allow-list, naming return_url", async () => {
    expect(await refusal(policy(false).assertAcceptable('mer_listed', 'https://elsewhere.example/back', 'return_url'))).toEqual([
      'VALIDATION_ERROR',
      [{ field: 'return_url', issue: expect.any(String) }],
    ]);
    expect(await refusal(policy(false).assertAcceptable('mer_listed', 'https://shop.example/back', 'return_url'))).toBeNull();
    expect(await refusal(policy(false).assertAcceptable('mer_open', 'https://elsewhere.example/back', 'return_url'))).toBeNull();
  });

  it('refuses http:// in production mode and takes it when the gateway allows http', async () => {
    expect(await refusal(policy(false).assertAcceptable('mer_open', 'http://shop.example/back', 'return_url'))).toEqual([
      'VALIDATION_ERROR',
      [{ field: 'return_url', issue: expect.any(String) }],
    ]);
    expect(await refusal(policy(true).assertAcceptable('mer_open', 'http://shop.example/back', 'return_url'))).toBeNull();
  });
});
