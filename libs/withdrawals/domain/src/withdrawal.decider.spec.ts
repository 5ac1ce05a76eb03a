import { DeciderSpecification, eventCodec } from '@mp/shared-decider';
import { DEFAULT_WITHDRAWAL_ASSETS } from './assets';
import { WITHDRAWAL_EVENT_SCHEMAS, withdrawalDecider, type NetworkAnswer, type WithdrawalCommand } from './withdrawal.decider';

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
const pending = () => spec.givenCommands(request());

describe('withdrawal decider', () => {
  describe('When not requested', () => {
    it('a valid request freezes amount and network fee of the balance asset', () => {
      const { state } = notRequested.when(request()).then([
        {
          type: 'WithdrawalRequested',
          data: {
            merchantId: 'm-1',
            orderId: 'W-1',
            currency: 'USDT-TRC20',
            network: 'TRON',
            balanceAsset: 'USDT',
            amountMinor: '15000000',
            networkFeeMinor: '1000000',
            address: TRON_ADDRESS,
            occurredAt: now.toISOString(),
            metadata: {},
          },
        },
      ]);
      expect(state).toMatchObject({ status: 'PENDING', sendProgress: 'queued', amountMinor: 15_000_000n, networkFeeMinor: 1_000_000n });
    });

    it('refuses an asset that is not in the table', () => {
      expect(notRequested.when(request({ currency: 'DOGE' })).thenThrows('VALIDATION_ERROR', 'currency').details).toEqual([
        expect.objectContaining({ field: 'currency' }),
      ]);
    });

    it('refuses an amount below the asset minimum', () => {
      expect(notRequested.when(request({ amountMinor: 9_999_999n })).thenThrows('VALIDATION_ERROR', 'amount').details).toEqual([
        expect.objectContaining({ field: 'amount' }),
      ]);
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

    it('keeps its metadata, and a retry with other metadata is DUPLICATE_ORDER naming the field', () => {
      const tagged = spec.givenCommands(request({ metadata: { payout_batch: 'B-7' } }));
      expect(tagged.state()).toMatchObject({ metadata: { payout_batch: 'B-7' } });
      tagged.when(request({ metadata: { payout_batch: 'B-7' } })).thenNothingHappens();
      expect(tagged.when(request({ metadata: { payout_batch: 'B-8' } })).thenThrows('DUPLICATE_ORDER').details).toEqual([
        expect.objectContaining({ field: 'metadata' }),
      ]);
      expect(tagged.when(request()).thenThrows('DUPLICATE_ORDER').details).toEqual([expect.objectContaining({ field: 'metadata' })]);
    });

    it('reads a WithdrawalRequested stored before metadata (version 1) as one without', () => {
      const v1 = {
        merchantId: 'm-1',
        orderId: 'W-1',
        currency: 'USDT-TRC20',
        network: 'TRON',
        balanceAsset: 'USDT',
        amountMinor: '1',
        networkFeeMinor: '1',
        address: TRON_ADDRESS,
        occurredAt: now.toISOString(),
      };
      expect(eventCodec(WITHDRAWAL_EVENT_SCHEMAS).read({ type: 'WithdrawalRequested', schemaVersion: 1, data: v1 }).data).toEqual({ ...v1, metadata: {} });
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
      spec
        .givenCommands(request(), startSending)
        .when(startSending)
        .then([{ type: 'WithdrawalSendingStarted', data: { attempt: 2, occurredAt: now.toISOString() } }]);
    });

    it('completes with the transaction hash, once', () => {
      const complete: WithdrawalCommand = { type: 'CompleteWithdrawal', data: { transactionHash: 'abc', resolvedBy: 'network' }, metadata: { now } };
      const { state } = pending.when(complete).outcome();
      expect(state).toMatchObject({ status: 'COMPLETED', transactionHash: 'abc', sendProgress: 'finished' });
      const completed = spec.givenCommands(request(), complete);
      completed.when({ ...complete, data: { ...complete.data, resolvedBy: 'operator' } }).thenNothingHappens();
      completed.when({ type: 'FailWithdrawal', data: { reason: 'late', resolvedBy: 'operator' }, metadata: { now } }).thenThrows('ORDER_STATE_CONFLICT');
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

  describe('When the network may have it ("sending")', () => {
    const sending = spec.givenCommands(request(), startSending);
    const operatorFail: WithdrawalCommand = { type: 'FailWithdrawal', data: { reason: 'looks stuck', resolvedBy: 'operator' }, metadata: { now } };
    const evidence = (answer: NetworkAnswer) => ({ operatorId: 'op-1', idempotencyKey: 'withdrawal:m-1:W-1', askedAt: now.toISOString(), answer });
    const reconcile = (answer: NetworkAnswer): WithdrawalCommand => ({ type: 'ReconcileWithdrawal', data: { evidence: evidence(answer) }, metadata: { now } });

    it('an operator may fail a withdrawal only while it is queued: no broadcast can have happened', () => {
      expect(pending().when(operatorFail).outcome().state).toMatchObject({ status: 'FAILED' });
      const error = sending.when(operatorFail).thenThrows('ORDER_STATE_CONFLICT');
      expect(error.details).toEqual([{ field: 'send_progress', issue: expect.stringContaining('reconcile') }]);
    });

    it('reconciling with the network saying "completed" completes it with the hash, and records what the network said, when and who asked', () => {
      const { events, state } = sending.when(reconcile({ status: 'completed', transactionHash: 'abc' })).outcome();
      expect(events).toEqual([
        { type: 'WithdrawalReconciled', data: { ...evidence({ status: 'completed', transactionHash: 'abc' }), occurredAt: now.toISOString() } },
        {
          type: 'WithdrawalCompleted',
          data: { transactionHash: 'abc', resolvedBy: 'reconciliation', reason: expect.stringContaining('op-1'), occurredAt: now.toISOString() },
        },
      ]);
      expect(state).toMatchObject({ status: 'COMPLETED', transactionHash: 'abc', reconciliation: evidence({ status: 'completed', transactionHash: 'abc' }) });
    });

    it.each<[string, Extract<NetworkAnswer, { reason: string }>]>([
      ['failed', { status: 'failed', reason: 'out of gas' }],
      ['dropped', { status: 'dropped', reason: 'never broadcast; the key is now refused' }],
    ])('reconciling with the network saying "%s" fails it, which returns the money', (_name, answer) => {
      const { events, state } = sending.when(reconcile(answer)).outcome();
      expect(events.map((event) => event.type)).toEqual(['WithdrawalReconciled', 'WithdrawalFailed']);
      expect(state).toMatchObject({ status: 'FAILED', failureReason: expect.stringContaining(answer.reason), reconciliation: evidence(answer) });
    });

    it('a network that has not decided yet leaves it "sending": reconcile again later', () => {
      sending.when(reconcile({ status: 'pending' })).thenThrows('ORDER_STATE_CONFLICT', 'network');
    });

    it('reconciling a finished withdrawal changes nothing when the network agrees, and is a conflict when it does not', () => {
      const completed = spec.givenCommands(request(), startSending, {
        type: 'CompleteWithdrawal',
        data: { transactionHash: 'abc', resolvedBy: 'network' },
        metadata: { now },
      });
      completed.when(reconcile({ status: 'completed', transactionHash: 'abc' })).thenNothingHappens();
      completed.when(reconcile({ status: 'failed', reason: 'x' })).thenThrows('ORDER_STATE_CONFLICT');
    });

    it('a network result after the withdrawal finished is recorded as a late result, never dropped, and changes nothing else', () => {
      const failed = spec.givenCommands(request(), startSending, reconcile({ status: 'dropped', reason: 'dropped' }));
      const late: WithdrawalCommand = { type: 'CompleteWithdrawal', data: { transactionHash: 'abc', resolvedBy: 'network' }, metadata: { now } };
      const { events, state } = failed.when(late).outcome();
      expect(events).toEqual([
        {
          type: 'LateNetworkResultRecorded',
          data: { outcome: 'completed', transactionHash: 'abc', reason: null, statusAtArrival: 'FAILED', contradicts: true, occurredAt: now.toISOString() },
        },
      ]);
      expect(state).toMatchObject({ status: 'FAILED', transactionHash: null });
      const agreeing = failed.when({ type: 'FailWithdrawal', data: { reason: 'dropped', resolvedBy: 'network' }, metadata: { now } }).outcome();
      expect(agreeing.events).toEqual([
        expect.objectContaining({ type: 'LateNetworkResultRecorded', data: expect.objectContaining({ outcome: 'failed', contradicts: false }) }),
      ]);
    });
  });

  it('a command on a withdrawal that does not exist is WITHDRAWAL_NOT_FOUND', () => {
    notRequested.when(startSending).thenThrows('WITHDRAWAL_NOT_FOUND');
  });
});
