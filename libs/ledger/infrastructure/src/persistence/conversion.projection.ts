import type { LedgerEvent } from '@mp/ledger-domain';
import type { EntityManager } from 'typeorm';

/** The statement memo of a conversion leg: what was converted at which rate, and why. */
export function conversionMemo(event: LedgerEvent): string | null {
  if (event.type !== 'ConversionDebited' && event.type !== 'ConversionCredited') return null;
  const { fromCurrency, toCurrency, rate, reason } = event.data;
  return `${fromCurrency}→${toCurrency} at ${rate}: ${reason}`;
}

/** The operators' audit trail: one row per conversion, written with its source leg. */
export async function projectConversion(manager: EntityManager, merchantId: string, event: LedgerEvent): Promise<void> {
  if (event.type !== 'ConversionDebited') return;
  const data = event.data;
  await manager.query(
    `INSERT INTO ledger_conversions (merchant_id, conversion_id, from_currency, to_currency, from_amount_minor, fee_minor, to_amount_minor, rate, reason, operator_id, recorded_at)
     VALUES ($1, $2, $3, $4, $5::numeric, $6::numeric, $7::numeric, $8, $9, $10, $11)`,
    [merchantId, data.conversionId, data.fromCurrency, data.toCurrency, data.fromAmountMinor, data.feeMinor, data.toAmountMinor, data.rate, data.reason, data.operatorId, data.occurredAt],
  );
}

export interface ConversionRow {
  merchant_id: string;
  conversion_id: string;
  from_currency: string;
  to_currency: string;
  from_amount_minor: string;
  fee_minor: string;
  to_amount_minor: string;
  rate: string;
  reason: string;
  operator_id: string;
  recorded_at: Date;
}

export async function findConversion(manager: EntityManager, merchantId: string, conversionId: string): Promise<ConversionRow | null> {
  const rows: ConversionRow[] = await manager.query(
    `SELECT merchant_id, conversion_id, from_currency, to_currency, from_amount_minor::text, fee_minor::text, to_amount_minor::text, rate, reason, operator_id, recorded_at
       FROM ledger_conversions WHERE merchant_id = $1 AND conversion_id = $2`,
    [merchantId, conversionId],
  );
  return rows[0] ?? null;
}
