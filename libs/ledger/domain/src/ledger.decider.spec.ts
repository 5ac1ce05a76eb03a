import { DomainError, type ErrorCode } from '@mp/shared-util-errors';
import { assertBalanced, type Posting } from './ledger-postings';
import {
  balancesOf,
  decide,
  evolve,
  foldLedger,
  initialLedgerState,
  toLedgerStreamId,
  type AdjustDeposit,
  type CreditPayIn,
  type HoldReference,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerState,
  type PlaceHold,
} from './ledger.decider';

/*
 * Given/when/then over the decider: `given` replays earlier commands through decide and
 * evolve, as the service would, so every state here is one the ledger can really reach.
 */

const now = new Date('2026-11-22T10:00:00.000Z');
const occurredAt = now.toISOString();
const stream = { merchantId: 'mch_1', currency: 'USD' };
const payout: HoldReference = { kind: 'payment_order', id: 'P-1' };

const creditPayIn = (data: Partial<CreditPayIn['data']> = {}): CreditPayIn => ({
  type: 'CreditPayIn',
  data: { orderId: 'A-1', amountMinor: 10_000n, feeMinor: 250n, reason: 'payin_succeeded', ...data },
  metadata: { now },
});
const placeHold = (data: Partial<PlaceHold['data']> = {}): PlaceHold => ({
  type: 'PlaceHold',
  data: { holdId: 'payout:P-1', amountMinor: 5_000n, feeMinor: 100n, reference: payout, ...data },
  metadata: { now },
});
const postHold = (holdId = 'payout:P-1'): LedgerCommand => ({ type: 'PostHold', data: { holdId }, metadata: { now } });
const voidHold = (holdId = 'payout:P-1'): LedgerCommand => ({ type: 'VoidHold', data: { holdId }, metadata: { now } });
const adjustDeposit = (data: Partial<AdjustDeposit['data']> = {}): AdjustDeposit => ({
  type: 'AdjustDeposit',
  data: { adjustmentId: 'ADJ-1', amountMinor: 3_000n, reason: 'collateral top-up', operatorId: 'op_1', ...data },
  metadata: { now },
});

/** The state after these commands, each decided and evolved in turn. */
function given(...commands: LedgerCommand[]): LedgerState {
  return commands.reduce((state, command) => decide(command, state).reduce(evolve, state), initialLedgerState(stream.merchantId, stream.currency));
}

/** Decides, checks the books balance, and returns the events and the state they lead to. */
function when(state: LedgerState, command: LedgerCommand): { events: LedgerEvent[]; state: LedgerState } {
  const events = decide(command, state);
  assertBalanced(events);
  return { events, state: events.reduce(evolve, state) };
}

function rejectionOf(state: LedgerState, command: LedgerCommand): DomainError {
  try {
    decide(command, state);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

function expectRejected(state: LedgerState, command: LedgerCommand, code: ErrorCode, field: string): DomainError {
  const error = rejectionOf(state, command);
  expect(error.code).toBe(code);
  expect(error.details.map((detail) => detail.field)).toContain(field);
  return error;
}

function posting(postingId: string, debitAccount: Posting['debitAccount'], creditAccount: Posting['creditAccount'], amountMinor: string, code: Posting['code'], reference: Posting['reference']): Posting {
  return { postingId, debitAccount, creditAccount, amountMinor, code, reference };
}

const order = (id: string): Posting['reference'] => ({ kind: 'payment_order', id });

describe('ledger decider', () => {
  it('names one stream per merchant and currency', () => {
    expect(toLedgerStreamId('mch_1', 'USD')).toBe('ledger:mch_1:USD');
    expect(toLedgerStreamId('mch_1', 'USDT')).not.toBe(toLedgerStreamId('mch_1', 'USD'));
  });

  describe('When the ledger is empty', () => {
    const empty = given();

    it('starts with every balance at zero', () => {
      expect(balancesOf(empty)).toEqual({ settlementAvailable: 0n, settlementFrozen: 0n, deposit: 0n });
    });

    it('credits a succeeded pay-in net of its fee and books the fee as revenue', () => {
      const { events, state } = when(empty, creditPayIn());
      expect(events).toEqual([
        {
          type: 'PayInCredited',
          data: {
            ...stream,
            orderId: 'A-1',
            amountMinor: '10000',
            feeMinor: '250',
            reason: 'payin_succeeded',
            postings: [
              posting('payin:A-1:settled', 'clearing', 'settlement_available', '9750', 'PAYIN_SETTLED', order('A-1')),
              posting('payin:A-1:fee', 'clearing', 'fee_revenue', '250', 'PAYIN_FEE', order('A-1')),
            ],
            occurredAt,
          },
        },
      ]);
      expect(balancesOf(state).settlementAvailable).toBe(9_750n);
      expect(state.balances.fee_revenue).toBe(250n);
      expect(state.balances.clearing).toBe(-10_000n);
    });

    it('credits an accepted dispute with the dispute codes', () => {
      const { events } = when(empty, creditPayIn({ reason: 'dispute_accepted' }));
      expect(events[0].data.postings.map((entry) => entry.code)).toEqual(['DISPUTE_SETTLED', 'DISPUTE_FEE']);
    });

    it('books no fee posting when the fee is zero, and no settlement posting when the fee takes it all', () => {
      expect(when(empty, creditPayIn({ feeMinor: 0n })).events[0].data.postings.map((entry) => entry.code)).toEqual(['PAYIN_SETTLED']);
      const wholeFee = when(empty, creditPayIn({ amountMinor: 30n, feeMinor: 30n }));
      expect(wholeFee.events[0].data.postings.map((entry) => entry.code)).toEqual(['PAYIN_FEE']);
      expect(balancesOf(wholeFee.state).settlementAvailable).toBe(0n);
    });

    it('treats a fee above the amount as a broken invariant, not a business error', () => {
      const run = () => decide(creditPayIn({ amountMinor: 100n, feeMinor: 101n }), empty);
      expect(run).toThrow('exceeds amount');
      expect(run).not.toThrow(DomainError);
    });

    it('treats a non-positive pay-in amount as a broken invariant', () => {
      expect(() => decide(creditPayIn({ amountMinor: 0n, feeMinor: 0n }), empty)).toThrow('not positive');
    });

    it('refuses a hold with INSUFFICIENT_FUNDS naming the amount', () => {
      const error = expectRejected(empty, placeHold(), 'INSUFFICIENT_FUNDS', 'amount');
      expect(error.details[0].issue).toBe('amount 50.00 USD plus fee 1.00 USD exceeds the available 0.00 USD');
    });

    it('refuses to post or void a hold it never placed with NOT_FOUND', () => {
      expectRejected(empty, postHold('nope'), 'NOT_FOUND', 'hold_id');
      expectRejected(empty, voidHold('nope'), 'NOT_FOUND', 'hold_id');
    });

    it('tops up the deposit from clearing', () => {
      const { events, state } = when(empty, adjustDeposit());
      expect(events).toEqual([
        {
          type: 'DepositAdjusted',
          data: {
            ...stream,
            adjustmentId: 'ADJ-1',
            amountMinor: '3000',
            reason: 'collateral top-up',
            operatorId: 'op_1',
            postings: [posting('deposit:ADJ-1', 'clearing', 'deposit', '3000', 'DEPOSIT_TOP_UP', { kind: 'deposit_adjustment', id: 'ADJ-1' })],
            occurredAt,
          },
        },
      ]);
      expect(balancesOf(state).deposit).toBe(3_000n);
    });

    it('refuses a deduction from an empty deposit with INSUFFICIENT_FUNDS', () => {
      expectRejected(empty, adjustDeposit({ amountMinor: -1n }), 'INSUFFICIENT_FUNDS', 'amount');
    });

    it('refuses a zero adjustment, an empty reason and an unnamed operator, naming each field', () => {
      const error = expectRejected(empty, adjustDeposit({ amountMinor: 0n, reason: '  ', operatorId: '' }), 'VALIDATION_ERROR', 'amount');
      expect(error.details.map((detail) => detail.field)).toEqual(['amount', 'reason', 'operator_id']);
    });

    it('keeps ids that are also names of object members apart from the prototype', () => {
      const { state } = when(when(empty, creditPayIn({ orderId: 'constructor' })).state, creditPayIn({ orderId: '__proto__' }));
      expect(balancesOf(state).settlementAvailable).toBe(19_500n);
      expect(decide(creditPayIn({ orderId: 'toString' }), state)).toHaveLength(1);
      expectRejected(state, postHold('constructor'), 'NOT_FOUND', 'hold_id');
    });
  });

  describe('When an order has been credited', () => {
    const credited = given(creditPayIn());

    it('credits nothing on a redelivery', () => {
      expect(when(credited, creditPayIn()).events).toEqual([]);
    });

    it('credits nothing when a dispute is accepted on the already settled order', () => {
      expect(when(credited, creditPayIn({ reason: 'dispute_accepted', amountMinor: 8_000n, feeMinor: 200n })).events).toEqual([]);
    });

    it('refuses a redelivery with other amounts as VALIDATION_ERROR', () => {
      expectRejected(credited, creditPayIn({ amountMinor: 10_001n }), 'VALIDATION_ERROR', 'order_id');
      expectRejected(credited, creditPayIn({ feeMinor: 251n }), 'VALIDATION_ERROR', 'order_id');
    });

    it('credits another order', () => {
      const { state } = when(credited, creditPayIn({ orderId: 'A-2' }));
      expect(balancesOf(state).settlementAvailable).toBe(19_500n);
    });
  });

  describe('When a dispute has been credited', () => {
    const disputed = given(creditPayIn({ reason: 'dispute_accepted' }));

    it('credits nothing for a late pay-in success of the same order', () => {
      expect(when(disputed, creditPayIn({ reason: 'payin_succeeded', amountMinor: 99n, feeMinor: 0n })).events).toEqual([]);
    });

    it('credits the dispute once on redelivery', () => {
      expect(when(disputed, creditPayIn({ reason: 'dispute_accepted' })).events).toEqual([]);
    });
  });

  describe('When settlement is available', () => {
    // 97.50 USD available.
    const funded = given(creditPayIn());

    it('freezes amount plus fee', () => {
      const { events, state } = when(funded, placeHold());
      expect(events).toEqual([
        {
          type: 'HoldPlaced',
          data: {
            ...stream,
            holdId: 'payout:P-1',
            amountMinor: '5000',
            feeMinor: '100',
            reference: payout,
            postings: [posting('hold:payout:P-1:placed', 'settlement_available', 'settlement_frozen', '5100', 'HOLD_PLACED', payout)],
            occurredAt,
          },
        },
      ]);
      expect(balancesOf(state)).toEqual({ settlementAvailable: 4_650n, settlementFrozen: 5_100n, deposit: 0n });
      expect(state.holds.get('payout:P-1')).toEqual({ status: 'pending', amountMinor: 5_000n, feeMinor: 100n, reference: payout });
    });

    it('freezes everything available', () => {
      expect(balancesOf(when(funded, placeHold({ amountMinor: 9_650n, feeMinor: 100n })).state).settlementAvailable).toBe(0n);
    });

    it('refuses one minor unit more than available', () => {
      const error = expectRejected(funded, placeHold({ amountMinor: 9_651n, feeMinor: 100n }), 'INSUFFICIENT_FUNDS', 'amount');
      expect(error.details[0].issue).toContain('exceeds the available 97.50 USD');
    });

    it('does not count the deposit as available settlement', () => {
      const withDeposit = when(funded, adjustDeposit({ amountMinor: 100_000n })).state;
      expectRejected(withDeposit, placeHold({ amountMinor: 9_651n, feeMinor: 100n }), 'INSUFFICIENT_FUNDS', 'amount');
    });

    it('treats a non-positive hold amount as a broken invariant', () => {
      const run = () => decide(placeHold({ amountMinor: 0n }), funded);
      expect(run).toThrow('not positive');
      expect(run).not.toThrow(DomainError);
    });
  });

  describe('When a hold is pending', () => {
    const pending = given(creditPayIn(), placeHold());

    it('places nothing more for the same hold again', () => {
      expect(when(pending, placeHold()).events).toEqual([]);
    });

    it('refuses the same hold id with another amount, fee or reference as VALIDATION_ERROR', () => {
      expectRejected(pending, placeHold({ amountMinor: 5_001n }), 'VALIDATION_ERROR', 'hold_id');
      expectRejected(pending, placeHold({ feeMinor: 0n }), 'VALIDATION_ERROR', 'hold_id');
      expectRejected(pending, placeHold({ reference: { kind: 'withdrawal', id: 'P-1' } }), 'VALIDATION_ERROR', 'hold_id');
    });

    it('keeps frozen money out of reach of another hold', () => {
      expectRejected(pending, placeHold({ holdId: 'withdrawal:W-1', amountMinor: 4_551n, feeMinor: 100n, reference: { kind: 'withdrawal', id: 'W-1' } }), 'INSUFFICIENT_FUNDS', 'amount');
      const second = when(pending, placeHold({ holdId: 'withdrawal:W-1', amountMinor: 4_550n, feeMinor: 100n, reference: { kind: 'withdrawal', id: 'W-1' } }));
      expect(balancesOf(second.state)).toEqual({ settlementAvailable: 0n, settlementFrozen: 9_750n, deposit: 0n });
    });

    it('posts the amount to clearing and the fee to revenue', () => {
      const { events, state } = when(pending, postHold());
      expect(events).toEqual([
        {
          type: 'HoldPosted',
          data: {
            ...stream,
            holdId: 'payout:P-1',
            postings: [
              posting('hold:payout:P-1:posted', 'settlement_frozen', 'clearing', '5000', 'HOLD_POSTED', payout),
              posting('hold:payout:P-1:fee', 'settlement_frozen', 'fee_revenue', '100', 'HOLD_FEE', payout),
            ],
            occurredAt,
          },
        },
      ]);
      expect(balancesOf(state)).toEqual({ settlementAvailable: 4_650n, settlementFrozen: 0n, deposit: 0n });
      expect(state.balances.fee_revenue).toBe(350n);
      expect(state.holds.get('payout:P-1')?.status).toBe('posted');
    });

    it('posts a fee-free hold with a single posting', () => {
      const feeFree = given(creditPayIn(), placeHold({ feeMinor: 0n }));
      expect(when(feeFree, postHold()).events[0].data.postings.map((entry) => entry.code)).toEqual(['HOLD_POSTED']);
    });

    it('voids the hold back to available, fee included', () => {
      const { events, state } = when(pending, voidHold());
      expect(events).toEqual([
        {
          type: 'HoldVoided',
          data: { ...stream, holdId: 'payout:P-1', postings: [posting('hold:payout:P-1:voided', 'settlement_frozen', 'settlement_available', '5100', 'HOLD_VOIDED', payout)], occurredAt },
        },
      ]);
      expect(balancesOf(state)).toEqual({ settlementAvailable: 9_750n, settlementFrozen: 0n, deposit: 0n });
    });
  });

  describe('When a hold is posted', () => {
    const posted = given(creditPayIn(), placeHold(), postHold());

    it('posts nothing on a repeat', () => {
      expect(when(posted, postHold()).events).toEqual([]);
    });

    it('refuses to void it', () => {
      expect(expectRejected(posted, voidHold(), 'VALIDATION_ERROR', 'hold_id').message).toBe('hold already posted');
    });

    it('places nothing for a late retry of its PlaceHold, even with too little left', () => {
      expect(when(posted, placeHold()).events).toEqual([]);
    });
  });

  describe('When a hold is voided', () => {
    const voided = given(creditPayIn(), placeHold(), voidHold());

    it('voids nothing on a repeat', () => {
      expect(when(voided, voidHold()).events).toEqual([]);
    });

    it('refuses to post it', () => {
      expect(expectRejected(voided, postHold(), 'VALIDATION_ERROR', 'hold_id').message).toBe('hold already voided');
    });

    it('does not place it again for a retry of its PlaceHold', () => {
      const { events, state } = when(voided, placeHold());
      expect(events).toEqual([]);
      expect(balancesOf(state).settlementFrozen).toBe(0n);
    });
  });

  describe('When the deposit has funds', () => {
    const deposited = given(adjustDeposit());

    it('deducts down to exactly zero through clearing', () => {
      const { events, state } = when(deposited, adjustDeposit({ adjustmentId: 'ADJ-2', amountMinor: -3_000n, reason: 'chargeback' }));
      expect(events[0].data.postings).toEqual([posting('deposit:ADJ-2', 'deposit', 'clearing', '3000', 'DEPOSIT_ADJUSTMENT', { kind: 'deposit_adjustment', id: 'ADJ-2' })]);
      expect(events[0].data).toMatchObject({ amountMinor: '-3000' });
      expect(balancesOf(state).deposit).toBe(0n);
    });

    it('refuses to deduct one minor unit more than the deposit', () => {
      expectRejected(deposited, adjustDeposit({ adjustmentId: 'ADJ-2', amountMinor: -3_001n }), 'INSUFFICIENT_FUNDS', 'amount');
    });

    it('adjusts nothing on a repeat of an applied adjustment', () => {
      expect(when(deposited, adjustDeposit()).events).toEqual([]);
    });

    it('refuses the same adjustment id with other parameters as VALIDATION_ERROR', () => {
      expectRejected(deposited, adjustDeposit({ amountMinor: 3_001n }), 'VALIDATION_ERROR', 'adjustment_id');
      expectRejected(deposited, adjustDeposit({ operatorId: 'op_2' }), 'VALIDATION_ERROR', 'adjustment_id');
    });
  });

  describe('Replay', () => {
    it('folds the same events into the same state, with the same posting ids every time', () => {
      const commands = [creditPayIn(), placeHold(), postHold(), adjustDeposit(), creditPayIn({ orderId: 'A-2', reason: 'dispute_accepted' })];
      const events: LedgerEvent[] = [];
      let state = initialLedgerState(stream.merchantId, stream.currency);
      for (const command of commands) {
        const decided = decide(command, state);
        expect(decide(command, state)).toEqual(decided);
        events.push(...decided);
        state = decided.reduce(evolve, state);
      }
      expect(foldLedger(stream.merchantId, stream.currency, events)).toEqual(state);
      // Events survive the JSON round trip of an event store.
      expect(foldLedger(stream.merchantId, stream.currency, JSON.parse(JSON.stringify(events)))).toEqual(state);
    });
  });

  describe('Invariants of evolve', () => {
    const [placed] = decide(placeHold({ amountMinor: 1n, feeMinor: 0n }), given(creditPayIn()));

    it('refuses an event that would make a merchant balance negative', () => {
      expect(() => evolve(given(), placed)).toThrow('settlement_available negative');
    });

    it('refuses an event of another stream', () => {
      expect(() => evolve(initialLedgerState('mch_2', 'USD'), placed)).toThrow('applied to the ledger of mch_2/USD');
    });

    it('refuses resolving a hold twice', () => {
      const state = given(creditPayIn(), placeHold());
      const [posted] = decide(postHold(), state);
      expect(() => evolve(evolve(state, posted), posted)).toThrow('while posted');
    });

    it('refuses an unknown currency at the start', () => {
      expect(() => initialLedgerState('mch_1', 'XXX')).toThrow('unknown ledger currency');
    });
  });

  describe('assertBalanced', () => {
    const [credited] = decide(creditPayIn(), given());
    const withPostings = (postings: Posting[]): LedgerEvent => ({ ...credited, data: { ...credited.data, postings } }) as LedgerEvent;
    const base = credited.data.postings[0];

    it('accepts what decide emits', () => {
      expect(() => assertBalanced([credited])).not.toThrow();
    });

    it('refuses zero, negative, non-canonical and fractional amounts', () => {
      for (const amountMinor of ['0', '-5', '05', '1.5', '', '1e3']) {
        expect(() => assertBalanced([withPostings([{ ...base, amountMinor }])])).toThrow('not a positive decimal integer');
      }
    });

    it('refuses a posting that debits and credits the same account, an unknown account, a repeated id and an empty event', () => {
      expect(() => assertBalanced([withPostings([{ ...base, creditAccount: 'clearing' }])])).toThrow('same account');
      expect(() => assertBalanced([withPostings([{ ...base, creditAccount: 'cash' as Posting['creditAccount'] }])])).toThrow('unknown account');
      expect(() => assertBalanced([withPostings([base, base])])).toThrow('repeats a posting id');
      expect(() => assertBalanced([withPostings([])])).toThrow('moves no money');
    });
  });
});
