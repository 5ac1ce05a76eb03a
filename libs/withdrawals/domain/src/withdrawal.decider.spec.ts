import { DomainError } from '@mp/shared-util-errors';
import { DEFAULT_WITHDRAWAL_ASSETS } from './assets';
import { withdrawalDecider, type Withdrawal, type WithdrawalCommand, type WithdrawalEvent } from './withdrawal.decider';

const now = new Date('2026-11-23T10:00:00.000Z');
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const EVM_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

const request = (overrides: Partial<Extract<WithdrawalCommand, { type: 'RequestWithdrawal' }>['data']> = {}): WithdrawalCommand => ({
  type: 'RequestWithdrawal',
  data: { merchantId: 'm-1', orderId: 'W-1', currency: 'USDT-TRC20', amountMinor: 15_000_000n, address: TRON_ADDRESS, ...overrides },
  metadata: { now, assets: DEFAULT_WITHDRAWAL_ASSETS },
});

function given(events: WithdrawalEvent[]): Withdrawal {
  return events.reduce(withdrawalDecider.evolve, withdrawalDecider.initialState());
}

function rejection(state: Withdrawal, command: WithdrawalCommand): DomainError {
  try {
    withdrawalDecider.decide(command, state);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected the command to be rejected');
}

const requested = withdrawalDecider.decide(request(), withdrawalDecider.initialState());

describe('withdrawal decider', () => {
  describe('When not requested', () => {
    it('a valid request freezes amount and network fee of the balance asset', () => {
      expect(requested).toEqual([
        {
          type: 'WithdrawalRequested',
          data: { merchantId: 'm-1', orderId: 'W-1', currency: 'USDT-TRC20', network: 'TRON', balanceAsset: 'USDT', amountMinor: '15000000', networkFeeMinor: '1000000', address: TRON_ADDRESS, occurredAt: now.toISOString() },
        },
      ]);
      expect(given(requested)).toMatchObject({ status: 'PENDING', sendProgress: 'queued', amountMinor: 15_000_000n, networkFeeMinor: 1_000_000n });
    });

    it('refuses an asset that is not in the table', () => {
      expect(rejection(withdrawalDecider.initialState(), request({ currency: 'DOGE' }))).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'currency' }] });
    });

    it('refuses an amount below the asset minimum', () => {
      expect(rejection(withdrawalDecider.initialState(), request({ amountMinor: 9_999_999n }))).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'amount' }] });
    });

    it('refuses a wrong-network address with INVALID_ADDRESS naming the network it belongs to', () => {
      const error = rejection(withdrawalDecider.initialState(), request({ address: EVM_ADDRESS }));
      expect(error).toMatchObject({ code: 'INVALID_ADDRESS', details: [{ field: 'address' }], extra: { detected_network: 'ETHEREUM' } });
    });

    it('refuses a typo with INVALID_ADDRESS and no network guess', () => {
      const error = rejection(withdrawalDecider.initialState(), request({ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u' }));
      expect(error.code).toBe('INVALID_ADDRESS');
      expect(error.extra).toBeUndefined();
    });
  });

  describe('When pending', () => {
    const pending = given(requested);

    it('a repeated identical request changes nothing', () => {
      expect(withdrawalDecider.decide(request(), pending)).toEqual([]);
    });

    it.each([
      ['amount', { amountMinor: 16_000_000n }],
      ['currency', { currency: 'USDT-ERC20', address: EVM_ADDRESS }],
      ['address', { address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' }],
    ])('a request with another %s under the same order_id is DUPLICATE_ORDER', (_field, overrides) => {
      expect(rejection(pending, request(overrides)).code).toBe('DUPLICATE_ORDER');
    });

    it('sending starts with attempt 1, and a restart counts attempt 2', () => {
      const first = withdrawalDecider.decide({ type: 'StartSendingWithdrawal', metadata: { now } }, pending);
      expect(first).toEqual([{ type: 'WithdrawalSendingStarted', data: { attempt: 1, occurredAt: now.toISOString() } }]);
      const second = withdrawalDecider.decide({ type: 'StartSendingWithdrawal', metadata: { now } }, given([...requested, ...first]));
      expect(second).toEqual([{ type: 'WithdrawalSendingStarted', data: { attempt: 2, occurredAt: now.toISOString() } }]);
    });

    it('completes with the transaction hash, once', () => {
      const command: WithdrawalCommand = { type: 'CompleteWithdrawal', data: { transactionHash: 'abc', resolvedBy: 'network' }, metadata: { now } };
      const completed = withdrawalDecider.decide(command, pending);
      const state = given([...requested, ...completed]);
      expect(state).toMatchObject({ status: 'COMPLETED', transactionHash: 'abc', sendProgress: 'finished' });
      expect(withdrawalDecider.decide(command, state)).toEqual([]);
      expect(rejection(state, { type: 'FailWithdrawal', data: { reason: 'late', resolvedBy: 'network' }, metadata: { now } }).code).toBe('ORDER_STATE_CONFLICT');
    });

    it('fails with a reason, once, and cannot be completed afterwards', () => {
      const failed = withdrawalDecider.decide({ type: 'FailWithdrawal', data: { reason: 'rejected by the network', resolvedBy: 'network' }, metadata: { now } }, pending);
      const state = given([...requested, ...failed]);
      expect(state).toMatchObject({ status: 'FAILED', failureReason: 'rejected by the network' });
      expect(withdrawalDecider.decide({ type: 'FailWithdrawal', data: { reason: 'again', resolvedBy: 'operator' }, metadata: { now } }, state)).toEqual([]);
      expect(withdrawalDecider.decide({ type: 'StartSendingWithdrawal', metadata: { now } }, state)).toEqual([]);
      expect(rejection(state, { type: 'CompleteWithdrawal', data: { transactionHash: 'x', resolvedBy: 'operator' }, metadata: { now } }).code).toBe('ORDER_STATE_CONFLICT');
    });
  });

  it('a command on a withdrawal that does not exist is WITHDRAWAL_NOT_FOUND', () => {
    expect(rejection(withdrawalDecider.initialState(), { type: 'StartSendingWithdrawal', metadata: { now } }).code).toBe('WITHDRAWAL_NOT_FOUND');
  });
});
