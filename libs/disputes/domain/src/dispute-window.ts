/**
 * Spec 4.9: a dispute may be opened "no later than one month after the order was created".
 *
 * The month is a calendar month in UTC: the deadline is the same UTC day-of-month and time of
 * day in the following month, and when that month is shorter, its last day at the same time.
 * So an order created 2026-01-31T10:00:00Z may be disputed until 2026-02-28T10:00:00.000Z
 * inclusive, and one created 2026-03-15T23:30:00Z until 2026-04-15T23:30:00.000Z. The instant
 * itself is still inside the window ("no later than"); one millisecond after it is not.
 *
 * Written by hand because the rule is the product's definition, not a date-library default:
 * libraries differ on month-end overflow (some roll into the next month), and this clamping is
 * what we document to merchants.
 */
export function disputeDeadline(orderCreatedAt: Date): Date {
  const year = orderCreatedAt.getUTCFullYear();
  const month = orderCreatedAt.getUTCMonth();
  const lastDayOfNextMonth = new Date(Date.UTC(year, month + 2, 0)).getUTCDate();
  const day = Math.min(orderCreatedAt.getUTCDate(), lastDayOfNextMonth);
  return new Date(
    Date.UTC(
      year,
      month + 1,
      day,
      orderCreatedAt.getUTCHours(),
      orderCreatedAt.getUTCMinutes(),
      orderCreatedAt.getUTCSeconds(),
      orderCreatedAt.getUTCMilliseconds(),
    ),
  );
}

export function isWithinDisputeWindow(orderCreatedAt: Date, openedAt: Date): boolean {
  return openedAt.getTime() <= disputeDeadline(orderCreatedAt).getTime();
}
