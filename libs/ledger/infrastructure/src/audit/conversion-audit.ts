import type { ConversionLeg, LedgerState } from '@mp/ledger-domain';

interface TrailRow {
  merchant_id: string;
  conversion_id: string;
  from_currency: string;
  to_currency: string;
  from_amount_minor: string;
  fee_minor: string;
  to_amount_minor: string;
}

/**
 * Conversions span two ledgers (ledger-conversions.ts), so no per-ledger check sees a half-booked
 * one. Checks: every conversion has its debit leg on the source currency's ledger and its credit
 * leg on the target's, with the same terms, and exactly one matching row in the operators'
 * trail (`ledger_conversions`), and no trail row lacks its legs; the leg rows commands decide
 * from (`ledger_conversion_legs`) are exactly the folded legs.
 */
export async function auditConversions(
  connection: { query<T>(sql: string, parameters?: unknown[]): Promise<{ rows: T[] }> },
  folded: ReadonlyArray<{ merchantId: string; currency: string; state: LedgerState }>,
  discrepancies: string[],
): Promise<void> {
  const legs = new Map<string, { merchantId: string; debit?: ConversionLeg & { ledger: string }; credit?: ConversionLeg & { ledger: string } }>();
  for (const { merchantId, currency, state } of folded) {
    for (const [conversionId, leg] of state.conversions) {
      const key = JSON.stringify([merchantId, conversionId]);
      const entry = legs.get(key) ?? { merchantId };
      entry[leg.leg] = { ...leg, ledger: currency };
      legs.set(key, entry);
    }
  }
  const trail = await connection.query<TrailRow>(
    `SELECT merchant_id, conversion_id, from_currency, to_currency, from_amount_minor::text, fee_minor::text, to_amount_minor::text FROM ledger_conversions`,
  );
  const trailByKey = new Map(trail.rows.map((row) => [JSON.stringify([row.merchant_id, row.conversion_id]), row]));

  for (const [key, { merchantId, debit, credit }] of legs) {
    const id = JSON.parse(key)[1] as string;
    const where = `merchant ${merchantId} conversion ${id}`;
    if (!debit || !credit) {
      discrepancies.push(`${where}: only the ${debit ? 'debit' : 'credit'} leg is booked`);
      continue;
    }
    if (debit.ledger !== debit.fromCurrency || credit.ledger !== credit.toCurrency)
      discrepancies.push(`${where}: a leg is booked on the wrong currency's ledger`);
    const same =
      debit.fromCurrency === credit.fromCurrency &&
      debit.toCurrency === credit.toCurrency &&
      debit.fromAmountMinor === credit.fromAmountMinor &&
      debit.feeMinor === credit.feeMinor &&
      debit.toAmountMinor === credit.toAmountMinor &&
      debit.rate === credit.rate;
    if (!same) discrepancies.push(`${where}: the two legs disagree on the terms`);
    const row = trailByKey.get(key);
    if (!row) discrepancies.push(`${where}: missing from ledger_conversions`);
    else if (
      BigInt(row.from_amount_minor) !== debit.fromAmountMinor ||
      BigInt(row.fee_minor) !== debit.feeMinor ||
      BigInt(row.to_amount_minor) !== debit.toAmountMinor ||
      row.from_currency !== debit.fromCurrency ||
      row.to_currency !== debit.toCurrency
    ) {
      discrepancies.push(`${where}: ledger_conversions disagrees with the booked legs`);
    }
  }
  const legRows = await connection.query<{
    merchant_id: string;
    currency: string;
    conversion_id: string;
    leg: string;
    from_amount_minor: string;
    fee_minor: string;
    to_amount_minor: string;
    rate: string;
  }>(`SELECT merchant_id, currency, conversion_id, leg, from_amount_minor::text, fee_minor::text, to_amount_minor::text, rate FROM ledger_conversion_legs`);
  const foldedLegs = new Map(
    folded.flatMap(({ merchantId, currency, state }) => [...state.conversions].map(([id, leg]) => [JSON.stringify([merchantId, currency, id]), leg] as const)),
  );
  for (const row of legRows.rows) {
    const key = JSON.stringify([row.merchant_id, row.currency, row.conversion_id]);
    const leg = foldedLegs.get(key);
    foldedLegs.delete(key);
    const where = `merchant ${row.merchant_id} conversion ${row.conversion_id} on ${row.currency}`;
    if (!leg) discrepancies.push(`${where}: ledger_conversion_legs has a leg the events do not`);
    else if (
      leg.leg !== row.leg ||
      leg.fromAmountMinor !== BigInt(row.from_amount_minor) ||
      leg.feeMinor !== BigInt(row.fee_minor) ||
      leg.toAmountMinor !== BigInt(row.to_amount_minor) ||
      leg.rate !== row.rate
    ) {
      discrepancies.push(`${where}: ledger_conversion_legs disagrees with the events`);
    }
  }
  for (const key of foldedLegs.keys()) {
    const [merchantId, currency, id] = JSON.parse(key) as string[];
    discrepancies.push(`merchant ${merchantId} conversion ${id} on ${currency}: booked in the events but missing from ledger_conversion_legs`);
  }
  for (const [key, row] of trailByKey) {
    if (!legs.has(key)) discrepancies.push(`merchant ${row.merchant_id} conversion ${row.conversion_id}: in ledger_conversions but no leg is booked`);
  }
}
