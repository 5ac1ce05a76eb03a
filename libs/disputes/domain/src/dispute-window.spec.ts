import { disputeDeadline, isWithinDisputeWindow } from './dispute-window';

describe('the one-month dispute window (UTC calendar month, clamped to month end)', () => {
  it.each([
    ['2026-03-15T23:30:00.000Z', '2026-04-15T23:30:00.000Z'],
    ['2026-01-31T10:00:00.000Z', '2026-02-28T10:00:00.000Z'],
    ['2028-01-31T10:00:00.000Z', '2028-02-29T10:00:00.000Z'],
    ['2026-12-31T00:00:00.000Z', '2027-01-31T00:00:00.000Z'],
    ['2026-05-31T12:00:00.000Z', '2026-06-30T12:00:00.000Z'],
    ['2026-02-28T08:00:00.000Z', '2026-03-28T08:00:00.000Z'],
  ])('an order created %s may be disputed until %s', (created, deadline) => {
    expect(disputeDeadline(new Date(created)).toISOString()).toBe(deadline);
  });

  it('includes the deadline instant and excludes the millisecond after it', () => {
    const created = new Date('2026-01-31T10:00:00.000Z');
    expect(isWithinDisputeWindow(created, new Date('2026-02-28T10:00:00.000Z'))).toBe(true);
    expect(isWithinDisputeWindow(created, new Date('2026-02-28T10:00:00.001Z'))).toBe(false);
  });

  it('does not move with the server time zone', () => {
    // Local-time arithmetic would shift these around midnight; the UTC fields must be used.
    expect(disputeDeadline(new Date('2026-03-31T23:59:59.999Z')).toISOString()).toBe('2026-04-30T23:59:59.999Z');
  });
});
