import type { ConversionLeg, LedgerEvent } from '@mp/ledger-domain';
import type { EntityManager } from 'typeorm';

/** The statement memo of a conversion leg: what was converted at which rate, and why. */
export function conversionMemo(event: LedgerEvent): string | null {
  if (event.type !== 'ConversionDebited' && event.type !== 'ConversionCredited') return null;
  const { fromCurrency, toCurrency, rate, reason } = event.data;
  return `${fromCurrency}→${toCurrency} at ${rate}: ${reason}`;
}

/**
 * Each leg's row on its own ledger (what the next command on this conversion id decides from),
 * and the operators' audit trail: one row per conversion, written with its source leg.
 */
export async function projectConversion(manager: EntityManager, merchantId: string, currency: string, event: LedgerEvent, eventId: string): Promise<void> {
  if (event.type !== 'ConversionDebited' && event.type !== 'ConversionCredited') return;
  const data = event.data;
  const leg = event.type === 'ConversionDebited' ? 'debit' : 'credit';
  await manager.query(
    `INSERT INTO ledger_conversion_legs (merchant_id, currency, conversion_id, leg, from_currency, to_currency, from_amount_minor, fee_minor, to_amount_minor, rate, reason, operator_id, event_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8::numeric, $9::numeric, $10, $11, $12, $13)`,
    [
      merchantId,
      currency,
      data.conversionId,
      leg,
      data.fromCurrency,
      data.toCurrency,
      data.fromAmountMinor,
      data.feeMinor,
      data.toAmountMinor,
      data.rate,
      data.reason,
      data.operatorId,
      eventId,
    ],
  );
  if (leg !== 'debit') return;
  await manager.query(
    `INSERT INTO ledger_conversions (merchant_id, conversion_id, from_currency, to_currency, from_amount_minor, fee_minor, to_amount_minor, rate, reason, operator_id, recorded_at)
     VALUES ($1, $2, $3, $4, $5::numeric, $6::numeric, $7::numeric, $8, $9, $10, $11)`,
    [
      merchantId,
      data.conversionId,
      data.fromCurrency,
      data.toCurrency,
      data.fromAmountMinor,
      data.feeMinor,
      data.toAmountMinor,
      data.rate,
      data.reason,
      data.operatorId,
      data.occurredAt,
    ],
  );
}

/** The leg of a conversion booked on one ledger: the one row a conversion command reads. */
export async function findConversionLeg(manager: EntityManager, merchantId: string, currency: string, conversionId: string): Promise<ConversionLeg | null> {
  const rows: Array<{
    leg: 'debit' | 'credit';
    from_currency: string;
    to_currency: string;
    from_amount_minor: string;
    fee_minor: string;
    to_amount_minor: string;
    rate: string;
    reason: string;
    operator_id: string;
  }> = await manager.query(
    `SELECT leg, from_currency, to_currency, from_amount_minor::text, fee_minor::text, to_amount_minor::text, rate, reason, operator_id
       FROM ledger_conversion_legs WHERE merchant_id = $1 AND currency = $2 AND conversion_id = $3`,
    [merchantId, currency, conversionId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    leg: row.leg,
    conversionId,
    fromCurrency: row.from_currency,
    toCurrency: row.to_currency,
    fromAmountMinor: BigInt(row.from_amount_minor),
    feeMinor: BigInt(row.fee_minor),
    toAmountMinor: BigInt(row.to_amount_minor),
    rate: row.rate,
    operatorId: row.operator_id,
    reason: row.reason,
  };
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
