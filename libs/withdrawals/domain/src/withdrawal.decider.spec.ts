import { DeciderSpecification } from '@mp/shared-decider';
import { DEFAULT_WITHDRAWAL_ASSETS } from './assets';
import { withdrawalDecider, type WithdrawalCommand } from './withdrawal.decider';

const now = new Date('2026-11-23T10:00:00.000Z');
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const EVM_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

const request = (overrides: Partial<Extract<WithdrawalCommand, { type: 'RequestWithdrawal' }>['data']> = {}): WithdrawalCommand => ({
  type: 'RequestWithdrawal',
  data: { merchantId: 'm-1', orderId: 'W-1', currency: 'USDT-TRC20', amountMinor: 15_000_000n, address: TRON_ADDRESS, ...overrides },
  metadata: { now, assets: DEFAULT_WITHDRAWAL_ASSETS },
});
const startSending: WithdrawalCommand = { type: 'StartSendingWithdrawal', metadata: { now } };

const spec = DeciderSpecification.for(withdrawalDecider);
const notRequested = spec.given([]);

describe('withdrawal decider', () => {
  describe('When not requested', () => {
    it('a valid request freezes amount and network fee of the balance asset', () => {
      const { state } = notRequested.when(request()).then([
        {
          type: 'WithdrawalRequested',
          data: { merchantId: 'm-1', orderId: 'W-1', currency: 'USDT-TRC20', network: 'TRON', balanceAsset: 'USDT', amountMinor: '15000000', networkFeeMinor: '1000000', address: TRON_ADDRESS, occurredAt: now.toISOString() },
        },
      ]);
      expect(state).toMatchObject({ status: 'PENDING', sendProgress: 'queued', amountMinor: 15_000_000n, networkFeeMinor: 1_000_000n });
    });

    it('refuses an asset that is not in the table', () => {
      expect(notRequested.when(request({ currency: 'DOGE' })).thenThrows('VALIDATION_ERROR', 'currency').details).toEqual([expect.objectContaining({ field: 'currency' })]);
    });

    it('refuses an amount below the asset minimum', () => {
      expect(notRequested.when(request({ amountMinor: 9_999_999n })).thenThrows('VALIDATION_ERROR', 'amount').details).toEqual([expect.objectContaining({ field: 'amount' })]);
    });

    it('refuses a wrong-network address with INVALID_ADDRESS naming the network it belongs to', () => {
      const error = notRequested.when(request({ address: EVM_ADDRESS })).thenThrows('INVALID_ADDRESS', 'address');
      expect(error).toMatchObject({ details: [{ field: 'address' }], extra: { detected_network: 'ETHEREUM' } });
    });

    it('refuses a typo with INVALID_ADDRESS and no network guess', () => {
      const error = notRequested.when(request({ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u' })).thenThrows('INVALID_ADDRESS', 'address');
      expect(error.extra).toBeUndefined();
    });
  });

  describe('When pending', () => {
    const pending = spec.givenCommands(request());

    it('a repeated identical request changes nothing', () => {
      pending.when(request()).thenNothingHappens();
    });

    it.each([
      ['amount', { amountMinor: 16_000_000n }],
      ['currency', { currency: 'USDT-ERC20', address: EVM_ADDRESS }],
      ['address', { address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' }],
    ])('a request with another %s under the same order_id is DUPLICATE_ORDER', (_field, overrides) => {
      pending.when(request(overrides)).thenThrows('DUPLICATE_ORDER');
    });

    it('sending starts with attempt 1, and a restart counts attempt 2', () => {
      pending.when(startSending).then([{ type: 'WithdrawalSendingStarted', data: { attempt: 1, occurredAt: now.toISOString() } }]);
      spec.givenCommands(request(), startSending).when(startSending).then([{ type: 'WithdrawalSendingStarted', data: { attempt: 2, occurredAt: now.toISOString() } }]);
    });

    it('completes with the transaction hash, once', () => {
      const complete: WithdrawalCommand = { type: 'CompleteWithdrawal', data: { transactionHash: 'abc', resolvedBy: 'network' }, metadata: { now } };
      const { state } = pending.when(complete).outcome();
      expect(state).toMatchObject({ status: 'COMPLETED', transactionHash: 'abc', sendProgress: 'finished' });
      const completed = spec.givenCommands(request(), complete);
      completed.when(complete).thenNothingHappens();
      completed.when({ type: 'FailWithdrawal', data: { reason: 'late', resolvedBy: 'network' }, metadata: { now } }).thenThrows('ORDER_STATE_CONFLICT');
    });

    it('fails with a reason, once, and cannot be completed afterwards', () => {
      const fail: WithdrawalCommand = { type: 'FailWithdrawal', data: { reason: 'rejected by the network', resolvedBy: 'network' }, metadata: { now } };
      expect(pending.when(fail).outcome().state).toMatchObject({ status: 'FAILED', failureReason: 'rejected by the network' });
      const failed = spec.givenCommands(request(), fail);
      failed.when({ type: 'FailWithdrawal', data: { reason: 'again', resolvedBy: 'operator' }, metadata: { now } }).thenNothingHappens();
      failed.when(startSending).thenNothingHappens();
      failed.when({ type: 'CompleteWithdrawal', data: { transactionHash: 'x', resolvedBy: 'operator' }, metadata: { now } }).thenThrows('ORDER_STATE_CONFLICT');
    });
  });

  it('a command on a withdrawal that does not exist is WITHDRAWAL_NOT_FOUND', () => {
    notRequested.when(startSending).thenThrows('WITHDRAWAL_NOT_FOUND');
  });
});
