/**
 * Goal: the auditor (npm run ledger:audit) catches books that disagree, names the ledger and
 * exits non-zero; the database itself refuses the worst tampering (a negative balance, a
 * changed posting); and the service refuses to write on a projection that drifted from its
 * stream. Method: real books made through the service, then direct SQL, as a bad migration
 * or a careless operator would; the auditor runs as the real command.
 */
import { LedgerTestService, newMerchantId, paymentOrderEvent } from '@mp/ledger-testing';

describe('ledger auditor', () => {
  let ledger: LedgerTestService;
  let merchantId: string;

  beforeAll(async () => {
    ledger = await LedgerTestService.start();
    merchantId = newMerchantId('audited');
    const funding = paymentOrderEvent('PaymentOrderSucceeded', {
      merchantId,
      orderId: 'A-1',
      direction: 'incoming',
      amountMinor: '100000',
      feeMinor: '1500',
      currency: 'RUB',
    });
    await ledger.publish([funding]);
    await ledger.eventuallyConsumed([funding.id]);
    expect((await ledger.placeHold(merchantId, `payout:${merchantId}:P-1`, '20000', '300')).status).toBe(201);
    const adjustment = await ledger.request('POST', `/internal/merchants/${merchantId}/deposit-adjustments`, {
      adjustment_id: 'ADJ-1',
      currency: 'RUB',
      amount_minor: '50000',
      reason: 'collateral',
      operator_id: 'op_1',
    });
    expect(adjustment.status).toBe(201);
  });
  afterAll(async () => ledger?.stop());

  const balancesRow = `merchant_id = $1 AND currency = 'RUB'`;

  it('passes on books made by the service', async () => {
    const audit = await ledger.runAuditCommand();
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(/ledger audit: 1 ledger\(s\), 3 event\(s\), 4 posting\(s\)/);
    expect(audit.stdout).toMatch(/RUB: settlement_available 78200, settlement_frozen 20300, deposit 50000, fee_revenue 1500, clearing -150000/);
    expect(audit.stdout).toMatch(/^OK/m);
  });

  it('exits 1 and names the ledger when a balance was changed behind the ledger’s back', async () => {
    await ledger.query(`UPDATE ledger_balances SET settlement_available = settlement_available + 1 WHERE ${balancesRow}`, [merchantId]);
    try {
      const audit = await ledger.runAuditCommand();
      expect(audit.code).toBe(1);
      expect(audit.stdout).toContain(
        `merchant ${merchantId} RUB: settlement_available disagrees: ledger_balances 78201, Σ ledger_postings 78200, event store 78200`,
      );
    } finally {
      await ledger.query(`UPDATE ledger_balances SET settlement_available = settlement_available - 1 WHERE ${balancesRow}`, [merchantId]);
    }
    expect((await ledger.runAuditCommand()).code).toBe(0);
  });

  it('finds frozen money that no open hold explains', async () => {
    await ledger.query(`UPDATE ledger_holds SET status = 'voided' WHERE merchant_id = $1`, [merchantId]);
    try {
      const report = await ledger.audit();
      expect(report.ok).toBe(false);
      expect(report.discrepancies).toEqual([
        `merchant ${merchantId} RUB: frozen 20300 is not the open holds: 0 in ledger_holds, 20300 in the event store`,
        `merchant ${merchantId} RUB: hold payout:${merchantId}:P-1 is voided 20000+300 in ledger_holds, pending 20000+300 in the event store`,
      ]);
    } finally {
      await ledger.query(`UPDATE ledger_holds SET status = 'pending' WHERE merchant_id = $1`, [merchantId]);
    }
    expect((await ledger.audit()).ok).toBe(true);
  });

  it('lets the database refuse a negative balance and a changed or deleted posting', async () => {
    await expect(ledger.query(`UPDATE ledger_balances SET deposit = -1 WHERE ${balancesRow}`, [merchantId])).rejects.toThrow(/ledger_balances_deposit_check/);
    await expect(ledger.query(`UPDATE ledger_postings SET amount_minor = 1 WHERE merchant_id = $1`, [merchantId])).rejects.toThrow(/append-only/);
    await expect(ledger.query(`DELETE FROM ledger_postings WHERE merchant_id = $1`, [merchantId])).rejects.toThrow(/append-only/);
    await expect(
      ledger.query(
        `INSERT INTO ledger_postings (merchant_id, currency, posting_id, debit_account, credit_account, amount_minor, code, reference_kind, reference_id, event_id, recorded_at)
                    SELECT merchant_id, currency, posting_id, debit_account, credit_account, amount_minor, code, reference_kind, reference_id, event_id, recorded_at FROM ledger_postings WHERE merchant_id = $1 LIMIT 1`,
        [merchantId],
      ),
    ).rejects.toThrow(/ledger_postings_pkey/);
    expect((await ledger.audit()).ok).toBe(true);
  });

  it('refuses to write on balances that drifted from the stream', async () => {
    await ledger.query(`UPDATE ledger_balances SET stream_version = stream_version + 1 WHERE ${balancesRow}`, [merchantId]);
    try {
      const refused = await ledger.placeHold(merchantId, `payout:${merchantId}:P-2`, '100');
      expect([refused.status, refused.body.code]).toEqual([500, 'INTERNAL_ERROR']);
      expect((await ledger.audit()).discrepancies).toEqual([`merchant ${merchantId} RUB: ledger_balances is at stream version 4, the event store at 3`]);
    } finally {
      await ledger.query(`UPDATE ledger_balances SET stream_version = stream_version - 1 WHERE ${balancesRow}`, [merchantId]);
    }
    expect((await ledger.placeHold(merchantId, `payout:${merchantId}:P-2`, '100')).status).toBe(201);
  });

  it('finds a posting that no event explains (run last: postings cannot be deleted)', async () => {
    await ledger.query(
      `INSERT INTO ledger_postings (merchant_id, currency, posting_id, debit_account, credit_account, amount_minor, code, reference_kind, reference_id, event_id, recorded_at)
       VALUES ($1, 'RUB', 'forged:1', 'clearing', 'settlement_available', 500, 'PAYIN_SETTLED', 'payment_order', 'X-1', gen_random_uuid(), now())`,
      [merchantId],
    );
    const audit = await ledger.runAuditCommand();
    expect(audit.code).toBe(1);
    expect(audit.stdout).toContain(
      `merchant ${merchantId} RUB: settlement_available disagrees: ledger_balances 78100, Σ ledger_postings 78600, event store 78100`,
    );
    expect(audit.stdout).toContain(
      `merchant ${merchantId} RUB: posting forged:1 (500 from clearing to settlement_available) is in ledger_postings but in no event`,
    );
  });

  it('finds a credited-order row, which credits decide from, that no event explains (run last: the rows cannot be deleted)', async () => {
    await ledger.query(
      `INSERT INTO ledger_credited_orders (merchant_id, currency, order_id, amount_minor, fee_minor, reason, event_id, recorded_at)
       VALUES ($1, 'RUB', 'FORGED-1', 500, 0, 'payin_succeeded', gen_random_uuid(), now())`,
      [merchantId],
    );
    expect((await ledger.audit()).discrepancies).toContain(`merchant ${merchantId} RUB: credit of order FORGED-1 is in ledger_credited_orders but in no event`);
  });
});
