import { disputeDecider, type DisputeCommand, type ExistingDispute } from '@mp/disputes-domain';
import { disputeView } from './dispute.projection';

/** The state object merchants see is built from the decider's state: amounts as decimals, no receipt content, no reviewer. */
describe('dispute view', () => {
  const open: DisputeCommand = {
    type: 'OpenDispute',
    data: {
      merchantId: 'mch_1',
      orderId: 'A-1',
      amountMinor: 95_000n,
      comment: 'paid 950',
      receipt: { receiptId: 'rcp_1', fileName: 'r.png', contentType: 'image/png', sizeBytes: 10 },
    },
    metadata: {
      now: new Date('2026-01-02T00:00:00.000Z'),
      order: { direction: 'incoming', createdAt: '2026-01-01T00:00:00.000Z', agentId: 'agt_1', amountMinor: 100_000n, currency: 'RUB' },
      newDisputeId: 'dsp_1',
      reviewWindowHours: 72,
    },
  };
  const accept: DisputeCommand = {
    type: 'ReviewDispute',
    data: { decision: 'ACCEPTED', reviewer: { role: 'operator', id: 'cred_1' }, reason: null },
    metadata: { now: new Date('2026-01-03T00:00:00.000Z') },
  };
  const run = (commands: DisputeCommand[]) =>
    commands.reduce(
      (state, command) => disputeDecider.decide(command, state).reduce(disputeDecider.evolve, state),
      disputeDecider.initialState(),
    ) as ExistingDispute;

  it('shows an open dispute with its evidence', () => {
    expect(disputeView(run([open]))).toEqual({
      dispute_id: 'dsp_1',
      order_id: 'A-1',
      status: 'OPEN',
      amount: '950.00',
      currency: 'RUB',
      comment: 'paid 950',
      receipt: { file_name: 'r.png', content_type: 'image/png', size_bytes: 10 },
      created_at: '2026-01-02T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
      review_deadline: '2026-01-05T00:00:00.000Z',
      metadata: {},
      review: null,
    });
  });

  it('shows the review outcome and the settled amount, not who reviewed', () => {
    expect(disputeView(run([open, accept]))).toMatchObject({
      status: 'ACCEPTED',
      updated_at: '2026-01-03T00:00:00.000Z',
      review_deadline: null,
      review: { decision: 'ACCEPTED', reason: null, settled_amount: '950.00', reviewed_at: '2026-01-03T00:00:00.000Z' },
    });
  });
});
