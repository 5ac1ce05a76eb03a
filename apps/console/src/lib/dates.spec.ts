import { formatDateTime, lastUtcDays } from './dates';

describe('formatDateTime', () => {
  it('shows the instant in the given time zone', () => {
    expect(formatDateTime('2026-01-31T21:30:00.000Z', 'Europe/Moscow', 'en-GB')).toBe('1 Feb 2026, 00:30:00');
    expect(formatDateTime('2026-01-31T21:30:00.000Z', 'America/New_York', 'en-GB')).toBe('31 Jan 2026, 16:30:00');
    expect(formatDateTime('2026-01-31T21:30:00.000Z', 'UTC', 'en-GB')).toBe('31 Jan 2026, 21:30:00');
  });

  it('says so for a missing or unreadable time instead of "Invalid Date"', () => {
    expect(formatDateTime(null, 'UTC')).toBe('—');
    expect(formatDateTime('yesterday', 'UTC')).toBe('yesterday');
  });
});

describe('lastUtcDays', () => {
  it('lists the UTC days up to today, oldest first, across a month end', () => {
    expect(lastUtcDays(new Date('2026-03-02T01:00:00Z'), 4)).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
  });
});
