import { ConfigError } from '@mp/shared-util-config';
import type { AcknowledgementRecord } from './audit-check';

/**
 * The caller's record (--acknowledged FILE): one JSON object per line,
 * {merchant_id, order_id, kind: "payment" | "withdrawal", acknowledged: true | false}; blank
 * lines are skipped. A malformed line is refused with its number: an audit that silently
 * dropped records would miss exactly the lost orders it is there to find.
 */
export function parseAcknowledgements(text: string, source: string): AcknowledgementRecord[] {
  const records: AcknowledgementRecord[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ConfigError([`${source}:${index + 1}: not JSON`]);
    }
    const record = value as Partial<AcknowledgementRecord> | null;
    const valid =
      typeof record === 'object' &&
      record !== null &&
      typeof record.merchant_id === 'string' &&
      typeof record.order_id === 'string' &&
      (record.kind === 'payment' || record.kind === 'withdrawal') &&
      typeof record.acknowledged === 'boolean';
    if (!valid)
      throw new ConfigError([
        `${source}:${index + 1}: expected {"merchant_id": string, "order_id": string, "kind": "payment" | "withdrawal", "acknowledged": boolean}`,
      ]);
    records.push({
      merchant_id: record.merchant_id as string,
      order_id: record.order_id as string,
      kind: record.kind as AcknowledgementRecord['kind'],
      acknowledged: record.acknowledged as boolean,
    });
  });
  return records;
}
