import { DeciderSpecification, eventCodec } from '@mp/shared-decider';
import type { ErrorCode } from '@mp/shared-util-errors';
import {
  DISPUTE_EVENT_SCHEMAS,
  disputeDecider,
  type Dispute,
  type DisputeCommand,
  type DisputeEvent,
  type DisputedOrderFacts,
  type DisputeReviewer,
} from './dispute.decider';

const created = '2026-01-31T10:00:00.000Z';
const order: DisputedOrderFacts = { direction: 'incoming', createdAt: created, agentId: 'agent-1', amountMinor: 150_000n, currency: 'RUB' };
const at = (iso: string) => new Date(iso);

const open = (
  overrides: { now?: Date; order?: DisputedOrderFacts | null; amountMinor?: bigint | null; comment?: string; metadata?: Record<string, string> } = {},
): DisputeCommand => ({
  type: 'OpenDispute',
  data: {
    merchantId: 'm-1',
    orderId: 'A-1',
    amountMinor: overrides.amountMinor === undefined ? 140_000n : overrides.amountMinor,
    comment: overrides.comment ?? 'paid 1400',
    receipt: null,
    metadata: overrides.metadata ?? null,
  },
  metadata: {
    now: overrides.now ?? at('2026-02-01T00:00:00.000Z'),
    order: overrides.order === undefined ? order : overrides.order,
    newDisputeId: 'dsp_1',
    reviewWindowHours: 72,
  },
});
const review = (decision: 'ACCEPTED' | 'REJECTED', reviewer: DisputeReviewer = { role: 'agent', id: 'agent-1' }): DisputeCommand => ({
  type: 'ReviewDispute',
  data: { decision, reviewer, reason: decision === 'REJECTED' ? 'no money arrived' : null },
  metadata: { now: at('2026-02-02T00:00:00.000Z') },
});

const spec = DeciderSpecification.for(disputeDecider);
const given = (events: DisputeEvent[]): Dispute => spec.given(events).state();
const then = (events: DisputeEvent[], command: DisputeCommand) => spec.given(events).when(command).outcome().events;
/** The refusal, asserted to carry this code (DeciderSpecification.thenThrows). */
const refused = (events: DisputeEvent[], command: DisputeCommand, code: ErrorCode) => spec.given(events).when(command).thenThrows(code);

const opened = then([], open());
const rejected = [...opened, ...then(opened, review('REJECTED'))];

describe('dispute decider', () => {
  describe('When no dispute exists', () => {
    it('opens one on an incoming order with an agent, inside the window', () => {
      expect(opened).toEqual([
        {
          type: 'DisputeOpened',
          data: expect.objectContaining({
            disputeId: 'dsp_1',
            orderId: 'A-1',
            amountMinor: '140000',
            comment: 'paid 1400',
            orderAmountMinor: '150000',
            orderAgentId: 'agent-1',
          }),
        },
      ]);
    });

    it('answers an outgoing order exactly like an unknown one', () => {
      const outgoing = refused([], open({ order: { ...order, direction: 'outgoing' } }), 'ORDER_NOT_FOUND');
      const unknown = refused([], open({ order: null }), 'ORDER_NOT_FOUND');
      expect([outgoing.code, outgoing.message, outgoing.details]).toEqual([unknown.code, unknown.message, unknown.details]);
      expect(unknown.code).toBe('ORDER_NOT_FOUND');
    });

    it('accepts an open at the deadline instant and refuses it one millisecond later', () => {
      expect(then([], open({ now: at('2026-02-28T10:00:00.000Z') }))).toHaveLength(1);
      expect(refused([], open({ now: at('2026-02-28T10:00:00.001Z') }), 'PAYMENT_REJECTED')).toMatchObject({
        code: 'PAYMENT_REJECTED',
        details: [{ issue: 'opened_too_late' }],
      });
    });

    it('caps the disputed amount at the order amount: equal is fine, one minor unit more is a VALIDATION_ERROR on amount', () => {
      expect(then([], open({ amountMinor: 150_000n }))).toHaveLength(1);
      expect(refused([], open({ amountMinor: 150_001n }), 'VALIDATION_ERROR')).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ field: 'amount', issue: 'must be at most 1500.00 RUB: the order amount less what accepted disputes on it settled' }],
      });
    });

    it('refuses an order no agent was assigned to', () => {
      expect(refused([], open({ order: { ...order, agentId: null } }), 'PAYMENT_REJECTED')).toMatchObject({
        code: 'PAYMENT_REJECTED',
        details: [{ issue: 'no_agent_assigned' }],
      });
    });
  });

  describe('When open', () => {
    it('refuses a second open on the same order, naming the open dispute', () => {
      expect(refused(opened, open(), 'PAYMENT_REJECTED')).toMatchObject({
        code: 'PAYMENT_REJECTED',
        details: [{ issue: 'dispute_already_open' }],
        extra: { dispute_id: 'dsp_1' },
      });
    });

    it('accepted settles for the disputed amount', () => {
      expect(then(opened, review('ACCEPTED'))).toEqual([{ type: 'DisputeAccepted', data: expect.objectContaining({ settledAmountMinor: '140000' }) }]);
    });

    it('accepted without a disputed amount settles for the order amount', () => {
      const withoutAmount = then([], open({ amountMinor: null }));
      expect(then(withoutAmount, review('ACCEPTED'))).toEqual([{ type: 'DisputeAccepted', data: expect.objectContaining({ settledAmountMinor: '150000' }) }]);
    });

    it('an operator may review; another agent is told the dispute does not exist', () => {
      expect(then(opened, review('REJECTED', { role: 'operator', id: 'op-1' }))).toHaveLength(1);
      expect(refused(opened, review('ACCEPTED', { role: 'agent', id: 'agent-2' }), 'DISPUTE_NOT_FOUND').code).toBe('DISPUTE_NOT_FOUND');
    });
  });

  describe('When rejected', () => {
    it('a retry reopens the same dispute id with the new evidence, keeping the old in history', () => {
      const reopened = then(rejected, open({ amountMinor: 145_000n, comment: 'bank statement attached' }));
      expect(reopened).toEqual([
        { type: 'DisputeReopened', data: expect.objectContaining({ disputeId: 'dsp_1', amountMinor: '145000', comment: 'bank statement attached' }) },
      ]);
      const state = given([...rejected, ...reopened]);
      expect(state).toMatchObject({
        status: 'OPEN',
        disputeId: 'dsp_1',
        evidence: { amountMinor: 145_000n, comment: 'bank statement attached' },
        review: null,
      });
      expect(state.status !== 'NotOpened' && state.earlierEvidence).toEqual([expect.objectContaining({ amountMinor: 140_000n, comment: 'paid 1400' })]);
    });

    it("a reopen keeps the dispute's metadata unless it sends some, which replaces it", () => {
      const tagged = [...then([], open({ metadata: { ticket: 'T-1' } }))];
      expect(tagged[0].data).toMatchObject({ metadata: { ticket: 'T-1' } });
      expect(opened[0].data).toMatchObject({ metadata: {} });
      const taggedRejected = [...tagged, ...then(tagged, review('REJECTED'))];
      expect(given([...taggedRejected, ...then(taggedRejected, open())])).toMatchObject({ metadata: { ticket: 'T-1' } });
      expect(given([...taggedRejected, ...then(taggedRejected, open({ metadata: { ticket: 'T-2' } }))])).toMatchObject({ metadata: { ticket: 'T-2' } });
    });

    it('the retry is capped like the first open', () => {
      expect(refused(rejected, open({ amountMinor: 150_001n }), 'VALIDATION_ERROR')).toMatchObject({ details: [{ field: 'amount' }] });
    });

    it('the retry still obeys the one-month window', () => {
      expect(refused(rejected, open({ now: at('2026-03-01T00:00:00.000Z') }), 'PAYMENT_REJECTED').code).toBe('PAYMENT_REJECTED');
    });
  });

  describe('the review deadline', () => {
    it('is the review window after the open, and goes once reviewed', () => {
      expect(opened[0].data).toMatchObject({ reviewDeadline: '2026-02-04T00:00:00.000Z' });
      expect(given(opened)).toMatchObject({ status: 'OPEN', reviewDeadline: '2026-02-04T00:00:00.000Z' });
      expect(given(rejected)).toMatchObject({ status: 'REJECTED', reviewDeadline: null });
    });

    it('starts again from a reopen', () => {
      const reopened = then(rejected, open({ now: at('2026-02-10T12:00:00.000Z') }));
      expect(given([...rejected, ...reopened])).toMatchObject({ status: 'OPEN', reviewDeadline: '2026-02-13T12:00:00.000Z' });
    });

    it('is the default 72 hours after the open for events stored before it existed (schema version 1)', () => {
      const codec = eventCodec(DISPUTE_EVENT_SCHEMAS);
      const { reviewDeadline: _none, ...v1 } = opened[0].data as { reviewDeadline: string };
      expect(codec.read({ type: 'DisputeOpened', schemaVersion: 1, data: v1 }).data).toMatchObject({ reviewDeadline: '2026-02-04T00:00:00.000Z' });
      expect(
        codec.read({
          type: 'DisputeReopened',
          schemaVersion: 1,
          data: { disputeId: 'dsp_1', amountMinor: null, comment: null, receipt: null, occurredAt: '2026-02-10T00:00:00.000Z' },
        }).data,
      ).toMatchObject({
        reviewDeadline: '2026-02-13T00:00:00.000Z',
      });
    });

    it("reads opens stored before metadata (version 2) as without any, and reopens as keeping the dispute's", () => {
      const codec = eventCodec(DISPUTE_EVENT_SCHEMAS);
      const { metadata: _none, ...v2 } = opened[0].data as { metadata: Record<string, string> };
      expect(codec.read({ type: 'DisputeOpened', schemaVersion: 2, data: v2 }).data).toEqual({ ...v2, metadata: {} });
      const reopenV2 = {
        disputeId: 'dsp_1',
        amountMinor: null,
        comment: null,
        receipt: null,
        occurredAt: '2026-02-10T00:00:00.000Z',
        reviewDeadline: '2026-02-13T00:00:00.000Z',
      };
      expect(codec.read({ type: 'DisputeReopened', schemaVersion: 2, data: reopenV2 }).data).toEqual({ ...reopenV2, metadata: null });
    });
  });

  describe('When accepted', () => {
    const accepted = [...opened, ...then(opened, review('ACCEPTED'))];

    it('refuses another open', () => {
      expect(refused(accepted, open(), 'PAYMENT_REJECTED')).toMatchObject({ code: 'PAYMENT_REJECTED', details: [{ issue: 'dispute_already_accepted' }] });
    });

    it('never settles more than the order, even for a dispute opened before the cap existed', () => {
      const uncapped: DisputeEvent[] = [{ ...opened[0], data: { ...(opened[0].data as object), amountMinor: '999999' } } as DisputeEvent];
      expect(refused(uncapped, review('ACCEPTED'), 'VALIDATION_ERROR')).toMatchObject({ details: [{ field: 'amount' }] });
      expect(then(uncapped, review('REJECTED'))).toHaveLength(1);
    });

    it('a repeated accept changes nothing; a reject is a conflict', () => {
      expect(then(accepted, review('ACCEPTED'))).toEqual([]);
      expect(refused(accepted, review('REJECTED'), 'ORDER_STATE_CONFLICT').code).toBe('ORDER_STATE_CONFLICT');
    });
  });
});
