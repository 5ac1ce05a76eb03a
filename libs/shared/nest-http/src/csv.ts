/**
 * RFC 4180 records, for the CSV exports (the ledger's operator export, the gateway's merchant
 * reconciliation report). Written by hand: no CSV library is among the dependencies, and these
 * few lines are the whole of what the exports need (they write; nothing here parses CSV).
 */

/**
 * One field: quoted when it contains a comma, a double quote, CR or LF, with inner quotes
 * doubled. Values are written exactly (no spreadsheet-formula escaping), since a
 * reconciliation must match the books to the character.
 */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One record, terminated by CRLF as RFC 4180 says. */
export function csvRecord(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
