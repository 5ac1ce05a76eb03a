/**
 * RFC 4180 reading of the reconciliation report (docs/api/endpoints.md 9a). Hand-written: no CSV
 * library is installed, and the format needs only quotes, doubled quotes and CRLF.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else field += char;
      index += 1;
      continue;
    }
    if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' || char === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      if (char === '\r' && text[index + 1] === '\n') index += 1;
    } else field += char;
    index += 1;
  }
  if (quoted) throw new Error('unterminated quoted field in the CSV');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** A day's change of the settlement balance (available + frozen), in minor units, from that day's report. */
export function dailySettlementChange(csv: string): bigint {
  const [header, ...rows] = parseCsv(csv);
  const available = header?.indexOf('available_change_minor') ?? -1;
  const frozen = header?.indexOf('frozen_change_minor') ?? -1;
  if (available < 0 || frozen < 0) throw new Error('the report has no available_change_minor / frozen_change_minor columns');
  let total = 0n;
  for (const row of rows) {
    if (row.length === 1 && row[0] === '') continue;
    total += BigInt(row[available] || '0') + BigInt(row[frozen] || '0');
  }
  return total;
}
