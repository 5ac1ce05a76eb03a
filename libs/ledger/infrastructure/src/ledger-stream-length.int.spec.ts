import { decide, initialLedgerState, ledgerDecider, toLedgerStreamId, type LedgerCommand, type LedgerEvent, type LedgerState } from '@mp/ledger-domain';
import { aggregateStream } from '@mp/shared-command-handling';
import { appendToStream, createEnvelope } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { handleLedgerCommand, ledgerEvents } from './commands/ledger.stream';
import { loadLedgerState, projectLedgerEvents } from './persistence/ledger.projection';
import { LedgerTestService, newMerchantId } from '@mp/ledger-testing';

/*
 * Structural proof that a ledger command's cost does not grow with the merchant's history:
 * a stream of 50,000 credits, then commands whose state is counted in stored events read.
 * No timing: the count is what must stay bounded. The decisions on that state must still be
 * right, and the auditor, which does replay everything, must agree with the running balances.
 */

const CREDITS = 50_000;
const BATCH = 1_000;
const AMOUNT = 1_000n;
const FEE = 10n;
/** Events read to build a command's state: none, the locked row is the stream's head (the append checks its version). */
const EVENTS_READ_MAX = 0;

describe('ledger commands on a long stream', () => {
  let ledger: LedgerTestService;
  const merchantId = newMerchantId('long');
  const currency = 'RUB';
  const streamId = toLedgerStreamId(merchantId, currency);
  const now = new Date('2026-11-23T12:00:00.000Z');
  const causation = { id: 'b5c4a1a2-0000-4000-8000-000000000001', correlationId: 'long-stream' };

  beforeAll(async () => {
    ledger = await LedgerTestService.start();
    // 50,000 credits, written through the real append and projection in batches of 1,000
    // (one command at a time would take minutes and prove nothing more).
    for (let first = 0; first < CREDITS; first += BATCH) {
      const events: LedgerEvent[] = [];
      const empty = initialLedgerState(merchantId, currency);
      for (let index = first; index < first + BATCH; index += 1) {
        events.push(
          ...decide(
            { type: 'CreditPayIn', data: { orderId: `C-${index}`, amountMinor: AMOUNT, feeMinor: FEE, reason: 'payin_succeeded' }, metadata: { now } },
            empty,
          ),
        );
      }
      await ledger.dataSource.transaction(async (manager) => {
        const { state: stateBefore, version: versionBefore } = await loadLedgerState(manager, merchantId, currency, {
          type: 'PostHold',
          data: { holdId: 'none' },
          metadata: { now },
        });
        const envelopes = events.map((event) =>
          createEnvelope({
            type: event.type,
            schemaVersion: ledgerEvents.versionOf(event.type),
            source: 'ledger',
            subject: `merchant:${merchantId}/ledger:${currency}`,
            data: event.data,
            correlationId: 'seed',
          }),
        );
        const version = await appendToStream(manager, streamId, versionBefore, envelopes);
        await projectLedgerEvents(manager, { streamId, stateBefore, state: stateBefore, events, envelopes, versionBefore, version });
      });
    }
  }, 300_000);

  afterAll(async () => {
    await ledger?.stop();
  });

  const run = (command: LedgerCommand) => handleLedgerCommand({ dataSource: ledger.dataSource }, merchantId, currency, command, causation);
  const stateOf = (command: LedgerCommand) =>
    ledger.dataSource.transaction((manager) =>
      aggregateStream(manager, ledgerDecider(merchantId, currency), streamId, {
        codec: ledgerEvents,
        loadState: (m) => loadLedgerState(m, merchantId, currency, command),
      }),
    );
  const refusal = async (command: LedgerCommand): Promise<DomainError> => {
    const error: unknown = await run(command).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
    return error;
  };
  it('holds 50,000 events in the stream', async () => {
    const [{ events }] = await ledger.query<{ events: number }>(`SELECT count(*)::int AS events FROM event_store WHERE stream_id = $1`, [streamId]);
    expect(events).toBe(CREDITS);
  });

  it('decides a hold from a bounded number of events, with the balance of all 50,000 credits', async () => {
    const total = BigInt(CREDITS) * (AMOUNT - FEE);
    const loaded = await stateOf({
      type: 'PlaceHold',
      data: { holdId: 'payout:P-1', amountMinor: 1n, feeMinor: 0n, reference: { kind: 'payment_order', id: 'P-1' } },
      metadata: { now },
    });
    expect(loaded.eventsRead).toBeLessThanOrEqual(EVENTS_READ_MAX);
    expect(loaded.version).toBe(CREDITS);
    expect(loaded.state.balances.settlement_available).toBe(total);

    // One minor unit more than the 50,000 credits is refused; exactly all of it minus the fee is held.
    const tooMuch = await refusal({
      type: 'PlaceHold',
      data: { holdId: 'payout:P-1', amountMinor: total - 99n, feeMinor: 100n, reference: { kind: 'payment_order', id: 'P-1' } },
      metadata: { now },
    });
    expect(tooMuch.code).toBe('INSUFFICIENT_FUNDS');
    const held = await run({
      type: 'PlaceHold',
      data: { holdId: 'payout:P-1', amountMinor: total - 100n, feeMinor: 100n, reference: { kind: 'payment_order', id: 'P-1' } },
      metadata: { now },
    });
    expect(held.events.map((event) => event.type)).toEqual(['HoldPlaced']);
    expect(held.eventsRead).toBeLessThanOrEqual(EVENTS_READ_MAX);
    expect(balances(held)).toEqual({ available: 0n, frozen: total, version: CREDITS + 1 });
  });

  it('recognises a credit from the start of the history without replaying it', async () => {
    const repeat = await run({
      type: 'CreditPayIn',
      data: { orderId: 'C-17', amountMinor: AMOUNT, feeMinor: FEE, reason: 'payin_succeeded' },
      metadata: { now },
    });
    expect(repeat.events).toEqual([]);
    expect(repeat.eventsRead).toBeLessThanOrEqual(EVENTS_READ_MAX);
    const conflicting = await refusal({
      type: 'CreditPayIn',
      data: { orderId: 'C-17', amountMinor: AMOUNT + 1n, feeMinor: FEE, reason: 'payin_succeeded' },
      metadata: { now },
    });
    expect([conflicting.code, conflicting.details[0].field]).toEqual(['VALIDATION_ERROR', 'order_id']);
  });

  it('voids the hold back and posts nothing twice', async () => {
    const voided = await run({ type: 'VoidHold', data: { holdId: 'payout:P-1' }, metadata: { now } });
    expect(voided.events.map((event) => event.type)).toEqual(['HoldVoided']);
    expect(voided.eventsRead).toBeLessThanOrEqual(EVENTS_READ_MAX);
    expect(balances(voided)).toEqual({ available: BigInt(CREDITS) * (AMOUNT - FEE), frozen: 0n, version: CREDITS + 2 });
    expect((await run({ type: 'VoidHold', data: { holdId: 'payout:P-1' }, metadata: { now } })).events).toEqual([]);
    expect((await refusal({ type: 'PostHold', data: { holdId: 'payout:P-1' }, metadata: { now } })).code).toBe('VALIDATION_ERROR');
  });

  it('is audited from the whole event store and the postings, which agree with the running balances', async () => {
    const report = await ledger.audit();
    expect(report.discrepancies).toEqual([]);
    expect(report.events).toBe(CREDITS + 2);
    expect(report.totalsByCurrency['RUB']).toMatchObject({
      settlement_available: (BigInt(CREDITS) * (AMOUNT - FEE)).toString(),
      settlement_frozen: '0',
      fee_revenue: (BigInt(CREDITS) * FEE).toString(),
    });
  });
});

function balances(result: { state: LedgerState; version: number }): { available: bigint; frozen: bigint; version: number } {
  return { available: result.state.balances.settlement_available, frozen: result.state.balances.settlement_frozen, version: result.version };
}
