import { DeciderSpecification } from '@mp/shared-decider';
import { assertBalanced, type Posting } from './ledger-postings';
import {
  balancesOf,
  decide,
  evolve,
  foldLedger,
  initialLedgerState,
  ledgerDecider,
  toLedgerStreamId,
  type AdjustDeposit,
  type CreditPayIn,
  type HoldReference,
  type LedgerCommand,
  type LedgerEvent,
  type PlaceHold,
} from './ledger.decider';

/*
 * Given/when/then over the decider: `givenCommands` replays earlier commands through decide
 * and evolve, as the service would, so every state here is one the ledger can really reach.
 * Every decision's books must balance (`checkEvents`).
 */

const now = new Date('2026-11-22T10:00:00.000Z');
const occurredAt = now.toISOString();
const stream = { merchantId: 'mch_1', currency: 'USD' };
const payout: HoldReference = { kind: 'payment_order', id: 'P-1' };
const spec = DeciderSpecification.for(ledgerDecider(stream.merchantId, stream.currency), { checkEvents: assertBalanced });

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

function posting(
  postingId: string,
  debitAccount: Posting['debitAccount'],
  creditAccount: Posting['creditAccount'],
  amountMinor: string,
  code: Posting['code'],
  reference: Posting['reference'],
): Posting {
  return { postingId, debitAccount, creditAccount, amountMinor, code, reference };
}

const order = (id: string): Posting['reference'] => ({ kind: 'payment_order', id });

describe('ledger decider', () => {
  it('names one stream per merchant and currency', () => {
    expect(toLedgerStreamId('mch_1', 'USD')).toBe('ledger:mch_1:USD');
    expect(toLedgerStreamId('mch_1', 'USDT')).not.toBe(toLedgerStreamId('mch_1', 'USD'));
  });

  describe('When the ledger is empty', () => {
    const empty = spec.given([]);

    it('starts with every balance at zero', () => {
      expect(balancesOf(empty.state())).toEqual({ settlementAvailable: 0n, settlementFrozen: 0n, deposit: 0n });
    });

    it('credits a succeeded pay-in net of its fee and books the fee as revenue', () => {
      const { state } = empty.when(creditPayIn()).then([
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
      const { events } = empty.when(creditPayIn({ reason: 'dispute_accepted' })).outcome();
      expect(events[0].data.postings.map((entry) => entry.code)).toEqual(['DISPUTE_SETTLED', 'DISPUTE_FEE']);
    });

    it('books no fee posting when the fee is zero, and no settlement posting when the fee takes it all', () => {
      expect(
        empty
          .when(creditPayIn({ feeMinor: 0n }))
          .outcome()
          .events[0].data.postings.map((entry) => entry.code),
      ).toEqual(['PAYIN_SETTLED']);
      const wholeFee = empty.when(creditPayIn({ amountMinor: 30n, feeMinor: 30n })).outcome();
      expect(wholeFee.events[0].data.postings.map((entry) => entry.code)).toEqual(['PAYIN_FEE']);
      expect(balancesOf(wholeFee.state).settlementAvailable).toBe(0n);
    });

    it('treats a fee above the amount as a broken invariant, not a business error', () => {
      empty.when(creditPayIn({ amountMinor: 100n, feeMinor: 101n })).thenBreaksInvariant('exceeds amount');
    });

    it('treats a non-positive pay-in amount as a broken invariant', () => {
      empty.when(creditPayIn({ amountMinor: 0n, feeMinor: 0n })).thenBreaksInvariant('not positive');
    });

    it('refuses a hold with INSUFFICIENT_FUNDS naming the amount', () => {
      const error = empty.when(placeHold()).thenThrows('INSUFFICIENT_FUNDS', 'amount');
      expect(error.details[0].issue).toBe('amount 50.00 USD plus fee 1.00 USD exceeds the available 0.00 USD');
    });

    it('refuses to post or void a hold it never placed with NOT_FOUND', () => {
      empty.when(postHold('nope')).thenThrows('NOT_FOUND', 'hold_id');
      empty.when(voidHold('nope')).thenThrows('NOT_FOUND', 'hold_id');
    });

    it('tops up the deposit from clearing', () => {
      const { state } = empty.when(adjustDeposit()).then([
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
      empty.when(adjustDeposit({ amountMinor: -1n })).thenThrows('INSUFFICIENT_FUNDS', 'amount');
    });

    it('refuses a zero adjustment, an empty reason and an unnamed operator, naming each field', () => {
      const error = empty.when(adjustDeposit({ amountMinor: 0n, reason: '  ', operatorId: '' })).thenThrows('VALIDATION_ERROR', 'amount');
      expect(error.details.map((detail) => detail.field)).toEqual(['amount', 'reason', 'operator_id']);
    });

    it('keeps ids that are also names of object members apart from the prototype', () => {
      const both = spec.givenCommands(creditPayIn({ orderId: 'constructor' }), creditPayIn({ orderId: '__proto__' }));
      expect(balancesOf(both.state()).settlementAvailable).toBe(19_500n);
      expect(both.when(creditPayIn({ orderId: 'toString' })).outcome().events).toHaveLength(1);
      both.when(postHold('constructor')).thenThrows('NOT_FOUND', 'hold_id');
    });
  });

  describe('When an order has been credited', () => {
    const credited = spec.givenCommands(creditPayIn());

    it('credits nothing on a redelivery', () => {
      credited.when(creditPayIn()).thenNothingHappens();
    });

    it('credits nothing when a dispute is accepted on the already settled order', () => {
      credited.when(creditPayIn({ reason: 'dispute_accepted', amountMinor: 8_000n, feeMinor: 200n })).thenNothingHappens();
    });

    it('refuses a redelivery with other amounts as VALIDATION_ERROR', () => {
      credited.when(creditPayIn({ amountMinor: 10_001n })).thenThrows('VALIDATION_ERROR', 'order_id');
      credited.when(creditPayIn({ feeMinor: 251n })).thenThrows('VALIDATION_ERROR', 'order_id');
    });

    it('credits another order', () => {
      const { state } = credited.when(creditPayIn({ orderId: 'A-2' })).outcome();
      expect(balancesOf(state).settlementAvailable).toBe(19_500n);
    });
  });

  describe('When a dispute has been credited', () => {
    const disputed = spec.givenCommands(creditPayIn({ reason: 'dispute_accepted' }));

    it('credits nothing for a late pay-in success of the same order', () => {
      disputed.when(creditPayIn({ reason: 'payin_succeeded', amountMinor: 99n, feeMinor: 0n })).thenNothingHappens();
    });

    it('credits the dispute once on redelivery', () => {
      disputed.when(creditPayIn({ reason: 'dispute_accepted' })).thenNothingHappens();
    });
  });

  describe('When settlement is available', () => {
    // 97.50 USD available.
    const funded = spec.givenCommands(creditPayIn());

    it('freezes amount plus fee', () => {
      const { state } = funded.when(placeHold()).then([
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
      expect(balancesOf(funded.when(placeHold({ amountMinor: 9_650n, feeMinor: 100n })).outcome().state).settlementAvailable).toBe(0n);
    });

    it('refuses one minor unit more than available', () => {
      const error = funded.when(placeHold({ amountMinor: 9_651n, feeMinor: 100n })).thenThrows('INSUFFICIENT_FUNDS', 'amount');
      expect(error.details[0].issue).toContain('exceeds the available 97.50 USD');
    });

    it('does not count the deposit as available settlement', () => {
      const withDeposit = spec.givenCommands(creditPayIn(), adjustDeposit({ amountMinor: 100_000n }));
      withDeposit.when(placeHold({ amountMinor: 9_651n, feeMinor: 100n })).thenThrows('INSUFFICIENT_FUNDS', 'amount');
    });

    it('treats a non-positive hold amount as a broken invariant', () => {
      funded.when(placeHold({ amountMinor: 0n })).thenBreaksInvariant('not positive');
    });
  });

  describe('When a hold is pending', () => {
    const pending = spec.givenCommands(creditPayIn(), placeHold());

    it('places nothing more for the same hold again', () => {
      pending.when(placeHold()).thenNothingHappens();
    });

    it('refuses the same hold id with another amount, fee or reference as VALIDATION_ERROR', () => {
      pending.when(placeHold({ amountMinor: 5_001n })).thenThrows('VALIDATION_ERROR', 'hold_id');
      pending.when(placeHold({ feeMinor: 0n })).thenThrows('VALIDATION_ERROR', 'hold_id');
      pending.when(placeHold({ reference: { kind: 'withdrawal', id: 'P-1' } })).thenThrows('VALIDATION_ERROR', 'hold_id');
    });

    it('keeps frozen money out of reach of another hold', () => {
      pending
        .when(placeHold({ holdId: 'withdrawal:W-1', amountMinor: 4_551n, feeMinor: 100n, reference: { kind: 'withdrawal', id: 'W-1' } }))
        .thenThrows('INSUFFICIENT_FUNDS', 'amount');
      const second = pending
        .when(placeHold({ holdId: 'withdrawal:W-1', amountMinor: 4_550n, feeMinor: 100n, reference: { kind: 'withdrawal', id: 'W-1' } }))
        .outcome();
      expect(balancesOf(second.state)).toEqual({ settlementAvailable: 0n, settlementFrozen: 9_750n, deposit: 0n });
    });

    it('posts the amount to clearing and the fee to revenue', () => {
      const { state } = pending.when(postHold()).then([
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
      const feeFree = spec.givenCommands(creditPayIn(), placeHold({ feeMinor: 0n }));
      expect(
        feeFree
          .when(postHold())
          .outcome()
          .events[0].data.postings.map((entry) => entry.code),
      ).toEqual(['HOLD_POSTED']);
    });

    it('voids the hold back to available, fee included', () => {
      const { state } = pending.when(voidHold()).then([
        {
          type: 'HoldVoided',
          data: {
            ...stream,
            holdId: 'payout:P-1',
            postings: [posting('hold:payout:P-1:voided', 'settlement_frozen', 'settlement_available', '5100', 'HOLD_VOIDED', payout)],
            occurredAt,
          },
        },
      ]);
      expect(balancesOf(state)).toEqual({ settlementAvailable: 9_750n, settlementFrozen: 0n, deposit: 0n });
    });
  });

  describe('When a hold is posted', () => {
    const posted = spec.givenCommands(creditPayIn(), placeHold(), postHold());

    it('posts nothing on a repeat', () => {
      posted.when(postHold()).thenNothingHappens();
    });

    it('refuses to void it', () => {
      expect(posted.when(voidHold()).thenThrows('VALIDATION_ERROR', 'hold_id').message).toBe('hold already posted');
    });

    it('places nothing for a late retry of its PlaceHold, even with too little left', () => {
      posted.when(placeHold()).thenNothingHappens();
    });
  });

  describe('When a hold is voided', () => {
    const voided = spec.givenCommands(creditPayIn(), placeHold(), voidHold());

    it('voids nothing on a repeat', () => {
      voided.when(voidHold()).thenNothingHappens();
    });

    it('refuses to post it', () => {
      expect(voided.when(postHold()).thenThrows('VALIDATION_ERROR', 'hold_id').message).toBe('hold already voided');
    });

    it('does not place it again for a retry of its PlaceHold', () => {
      const { state } = voided.when(placeHold()).then([]);
      expect(balancesOf(state).settlementFrozen).toBe(0n);
    });
  });

  describe('When the deposit has funds', () => {
    const deposited = spec.givenCommands(adjustDeposit());

    it('deducts down to exactly zero through clearing', () => {
      const { events, state } = deposited.when(adjustDeposit({ adjustmentId: 'ADJ-2', amountMinor: -3_000n, reason: 'chargeback' })).outcome();
      expect(events[0].data.postings).toEqual([
        posting('deposit:ADJ-2', 'deposit', 'clearing', '3000', 'DEPOSIT_ADJUSTMENT', { kind: 'deposit_adjustment', id: 'ADJ-2' }),
      ]);
      expect(events[0].data).toMatchObject({ amountMinor: '-3000' });
      expect(balancesOf(state).deposit).toBe(0n);
    });

    it('refuses to deduct one minor unit more than the deposit', () => {
      deposited.when(adjustDeposit({ adjustmentId: 'ADJ-2', amountMinor: -3_001n })).thenThrows('INSUFFICIENT_FUNDS', 'amount');
    });

    it('adjusts nothing on a repeat of an applied adjustment', () => {
      deposited.when(adjustDeposit()).thenNothingHappens();
    });

    it('refuses the same adjustment id with other parameters as VALIDATION_ERROR', () => {
      deposited.when(adjustDeposit({ amountMinor: 3_001n })).thenThrows('VALIDATION_ERROR', 'adjustment_id');
      deposited.when(adjustDeposit({ operatorId: 'op_2' })).thenThrows('VALIDATION_ERROR', 'adjustment_id');
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
    const [placed] = decide(placeHold({ amountMinor: 1n, feeMinor: 0n }), spec.givenCommands(creditPayIn()).state());

    it('refuses an event that would make a merchant balance negative', () => {
      expect(() => evolve(spec.given([]).state(), placed)).toThrow('settlement_available negative');
    });

    it('refuses an event of another stream', () => {
      expect(() => evolve(initialLedgerState('mch_2', 'USD'), placed)).toThrow('applied to the ledger of mch_2/USD');
    });

    it('refuses resolving a hold twice', () => {
      const state = spec.givenCommands(creditPayIn(), placeHold()).state();
      const [posted] = decide(postHold(), state);
      expect(() => evolve(evolve(state, posted), posted)).toThrow('while posted');
    });

    it('refuses an unknown currency at the start', () => {
      expect(() => initialLedgerState('mch_1', 'XXX')).toThrow('unknown ledger currency');
    });
  });

  describe('assertBalanced', () => {
    const [credited] = decide(creditPayIn(), spec.given([]).state());
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
