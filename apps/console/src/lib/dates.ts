/** Dates in the viewer's time zone: the browser's unless a test names one. */
export function viewerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** An API time (ISO 8601, UTC) for people, in `timeZone`: `1 Feb 2026, 00:30:00`. */
export function formatDateTime(iso: string | null | undefined, timeZone: string = viewerTimeZone(), locale?: string): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium', timeZone }).format(instant);
}

/** The last `count` calendar days in UTC (the reconciliation report's days), oldest first, `today` included. */
export function lastUtcDays(today: Date, count: number): string[] {
  const days: string[] = [];
  for (let back = count - 1; back >= 0; back -= 1) {
    days.push(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - back)).toISOString().slice(0, 10));
  }
  return days;
}
