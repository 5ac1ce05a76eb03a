/**
 * Goal: the sender never sends a withdrawal twice, whether two replicas poll at the same time
 * or a send is resumed after a crash, and every claimed withdrawal reaches its outcome: the
 * simulated network's own table counts the sends (rows) and the requests (repeats answered
 * from memory). Also: a merchant's list pages each withdrawal once, newest first. Method: the real command handling (shared core), sender and simulator on a private real PostgreSQL
 * database with the service's migrations; two sender instances stand for two replicas. The
 * ledger's hold answer is the one thing given by the test (the e2e suite uses the real ledger).
 */
import { randomBytes } from 'node:crypto';
import type { HoldView, PlaceHoldRequest } from '@mp/contracts-ledger';
import type { LedgerHolds } from '@mp/ledger-client';
import { DomainError } from '@mp/shared-util-errors';
import { DEFAULT_WITHDRAWAL_ASSETS, toWithdrawalStreamId, type NetworkAnswer, type WithdrawalCommand } from '@mp/withdrawals-domain';
import { Client } from 'pg';
import { OffsetClock } from '@mp/shared-util-clock';
import { DataSource } from 'typeorm';
import { handleWithdrawalCommand } from './commands/withdrawal.stream';
import { findWithdrawal, listWithdrawals } from './persistence/withdrawal.projection';
import type { NetworkAdapter, NetworkSendRequest, NetworkSendResult } from './sending/network-adapter.port';
import { SimulatedNetworkAdapter } from './sending/simulated-network.adapter';
import { WithdrawalSender } from './sending/withdrawal-sender';
import { WITHDRAWALS_MIGRATIONS } from './withdrawals.module';
import type { WithdrawalsSettings } from './withdrawals-settings';

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const MERCHANT = 'mch_sender_test';

/** The ledger always has the funds here; this test is about sending. */
class GenerousLedger implements LedgerHolds {
  async placeHold(request: PlaceHoldRequest): Promise<HoldView> {
    return { hold_id: request.hold_id, status: 'pending', amount_minor: request.amount_minor, fee_minor: request.fee_minor };
  }
}

/** Counts the calls that reach the simulator, per key, to see what each replica did. */
class CountingAdapter implements NetworkAdapter {
  readonly calls: string[] = [];
  constructor(private readonly inner: NetworkAdapter) {}
  send(request: NetworkSendRequest): Promise<NetworkSendResult> {
    this.calls.push(request.idempotencyKey);
    return this.inner.send(request);
  }
  lookup(idempotencyKey: string, merchantId: string): Promise<NetworkAnswer> {
    return this.inner.lookup(idempotencyKey, merchantId);
  }
}

/** Holds each send's answer until the test lets it go, so the test can act while the transfer is "on the network". */
class GatedAdapter implements NetworkAdapter {
  private readonly gate = Promise.withResolvers<void>();
  private readonly arrival = Promise.withResolvers<void>();
  readonly reached = this.arrival.promise;
  constructor(private readonly inner: NetworkAdapter) {}
  async send(request: NetworkSendRequest): Promise<NetworkSendResult> {
    this.arrival.resolve();
    await this.gate.promise;
    return this.inner.send(request);
  }
  lookup(idempotencyKey: string, merchantId: string): Promise<NetworkAnswer> {
    return this.inner.lookup(idempotencyKey, merchantId);
  }
  open(): void {
    this.gate.resolve();
  }
}

describe('withdrawal sender', () => {
  const databaseName = `w${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  let dataSource: DataSource;
  const settings: WithdrawalsSettings = {
    commandPartitions: 1,
    assets: DEFAULT_WITHDRAWAL_ASSETS,
    ledgerInternalUrl: 'http://127.0.0.1:9',
    ledgerTimeoutMs: 1_000,
    sendIntervalMs: 3_600_000,
    sendLeaseMs: 60_000,
    sendConcurrency: 4,
    simulator: { delayMs: 50, outcome: 'succeed', failAddressPattern: null },
    crashAfterNetworkSend: false,
  };
  const ledger = new GenerousLedger();

  beforeAll(async () => {
    const adminUrl = process.env['TEST_PG_ADMIN_URL'];
    if (!adminUrl) throw new Error('TEST_PG_ADMIN_URL is not set: run through npm test');
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${databaseName}"`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${databaseName}`;
    dataSource = new DataSource({ type: 'postgres', url: url.toString(), migrations: WITHDRAWALS_MIGRATIONS, migrationsRun: true, extra: { max: 10 } });
    await dataSource.initialize();
  });
  afterAll(async () => dataSource?.destroy());

  async function request(orderId: string, merchantId = MERCHANT): Promise<void> {
    await dataSource.transaction((manager) =>
      handleWithdrawalCommand(
        ledger,
        { manager },
        merchantId,
        orderId,
        {
          type: 'RequestWithdrawal',
          data: { merchantId, orderId, currency: 'USDT-TRC20', amountMinor: 15_000_000n, address: TRON_ADDRESS },
          metadata: { now: new Date(), assets: DEFAULT_WITHDRAWAL_ASSETS },
        },
        { id: `req-${orderId}`, correlationId: `req-${orderId}` },
      ),
    );
  }

  it('two replicas polling at once send each withdrawal exactly once', async () => {
    const orderIds = Array.from({ length: 20 }, (_, index) => `RACE-${index}`);
    for (const orderId of orderIds) await request(orderId);
    const replicaA = new CountingAdapter(new SimulatedNetworkAdapter(dataSource, settings));
    const replicaB = new CountingAdapter(new SimulatedNetworkAdapter(dataSource, settings));
    const senders = [
      new WithdrawalSender(dataSource, ledger, replicaA, settings, new OffsetClock()),
      new WithdrawalSender(dataSource, ledger, replicaB, settings, new OffsetClock()),
    ];
    const finished = (await Promise.all(senders.map((sender) => sender.sendDue()))).reduce((sum, count) => sum + count, 0);
    expect(finished).toBe(20);
    // Each withdrawal reached the network from one replica only.
    expect([...replicaA.calls, ...replicaB.calls].sort()).toEqual(orderIds.map((orderId) => toWithdrawalStreamId(MERCHANT, orderId)).sort());
    const sends = await dataSource.query(`SELECT count(*)::int AS sends, max(requests) AS most FROM simulated_network_sends WHERE idempotency_key LIKE $1`, [
      `withdrawal:${MERCHANT}:RACE-%`,
    ]);
    expect(sends).toEqual([{ sends: 20, most: 1 }]);
    for (const orderId of orderIds) expect((await findWithdrawal(dataSource.manager, MERCHANT, orderId))?.status).toBe('COMPLETED');
  });

  it('resumes a send left in "sending" by a crash with the same key, and the network does not send again', async () => {
    await request('RESUME-1');
    const network = new SimulatedNetworkAdapter(dataSource, settings);
    // The crashed replica had recorded "sending" and the network had accepted the send.
    await dataSource.transaction((manager) =>
      handleWithdrawalCommand(
        ledger,
        { manager },
        MERCHANT,
        'RESUME-1',
        { type: 'StartSendingWithdrawal', metadata: { now: new Date() } },
        { id: 'crashed', correlationId: 'crashed' },
      ),
    );
    const first = await network.send({
      merchantId: MERCHANT,
      idempotencyKey: toWithdrawalStreamId(MERCHANT, 'RESUME-1'),
      network: 'TRON',
      address: TRON_ADDRESS,
      currency: 'USDT-TRC20',
      amountMinor: 15_000_000n,
    });
    await dataSource.query(`UPDATE withdrawals SET lease_until = now() - interval '1 second' WHERE order_id = 'RESUME-1'`);

    // A replica fails everything now, yet the resumed send gets the first result back.
    const failingNow = new WithdrawalSender(
      dataSource,
      ledger,
      new SimulatedNetworkAdapter(dataSource, { ...settings, simulator: { ...settings.simulator, outcome: 'fail' } }),
      settings,
      new OffsetClock(),
    );
    expect(await failingNow.sendDue()).toBe(1);
    const row = await findWithdrawal(dataSource.manager, MERCHANT, 'RESUME-1');
    expect(first.outcome).toBe('completed');
    expect(row).toMatchObject({ status: 'COMPLETED', send_attempts: 2, transaction_hash: first.outcome === 'completed' ? first.transactionHash : 'none' });
    expect(
      await dataSource.query(`SELECT requests FROM simulated_network_sends WHERE idempotency_key = $1`, [toWithdrawalStreamId(MERCHANT, 'RESUME-1')]),
    ).toEqual([{ requests: 2 }]);
  });

  it('records nothing when the ledger refuses the hold or released it as orphaned', async () => {
    const requestWith = (refusing: LedgerHolds, orderId: string) =>
      dataSource.transaction((manager) =>
        handleWithdrawalCommand(
          refusing,
          { manager },
          MERCHANT,
          orderId,
          {
            type: 'RequestWithdrawal',
            data: { merchantId: MERCHANT, orderId, currency: 'USDT-TRC20', amountMinor: 15_000_000n, address: TRON_ADDRESS },
            metadata: { now: new Date(), assets: DEFAULT_WITHDRAWAL_ASSETS },
          },
          { id: `req-${orderId}`, correlationId: `req-${orderId}` },
        ),
      );
    const broke: LedgerHolds = { placeHold: async () => Promise.reject(new DomainError('INSUFFICIENT_FUNDS', 'not enough')) };
    const released: LedgerHolds = {
      placeHold: async (hold) => ({ hold_id: hold.hold_id, status: 'voided', amount_minor: hold.amount_minor, fee_minor: hold.fee_minor }),
    };
    await expect(requestWith(broke, 'NO-FUNDS')).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    await expect(requestWith(released, 'ORPHANED')).rejects.toMatchObject({ code: 'DUPLICATE_ORDER' });
    const written = await dataSource.query(`SELECT count(*)::int AS events FROM event_store WHERE stream_id IN ($1, $2)`, [
      toWithdrawalStreamId(MERCHANT, 'NO-FUNDS'),
      toWithdrawalStreamId(MERCHANT, 'ORPHANED'),
    ]);
    expect(written).toEqual([{ events: 0 }]);
    expect(await findWithdrawal(dataSource.manager, MERCHANT, 'NO-FUNDS')).toBeNull();
  });

  const runCommand = (orderId: string, command: WithdrawalCommand) =>
    dataSource.transaction((manager) =>
      handleWithdrawalCommand(ledger, { manager }, MERCHANT, orderId, command, { id: `op-${orderId}-${command.type}`, correlationId: `op-${orderId}` }),
    );
  const lateResults = (orderId: string) =>
    dataSource.query(
      `SELECT status_at_arrival, outcome, transaction_hash, contradicts FROM withdrawal_late_network_results WHERE merchant_id = $1 AND order_id = $2`,
      [MERCHANT, orderId],
    );
  const counter = async (labels: string): Promise<number> =>
    Number(
      (
        await dataSource.query(`SELECT value::text FROM withdrawal_metric_counters WHERE metric = 'withdrawal_late_network_results_total' AND labels = $1`, [
          labels,
        ])
      )[0]?.value ?? 0,
    );

  it('keeps a network result that arrives after the withdrawal finished: a dead letter, a counter and an error log, and the outcome stands', async () => {
    await request('LATE-1');
    const gated = new GatedAdapter(
      new SimulatedNetworkAdapter(dataSource, { ...settings, simulator: { ...settings.simulator, failAddressPattern: /^TR7NH/ } }),
    );
    const sender = new WithdrawalSender(dataSource, ledger, gated, settings, new OffsetClock());
    const errors: string[] = [];
    jest
      .spyOn((sender as unknown as { logger: { error: (message: string) => void } }).logger, 'error')
      .mockImplementation((message: string) => void errors.push(message));
    const round = sender.sendDue();
    await gated.reached;
    // An operator found the transfer on the network meanwhile (completing needs no network word to stay safe: nothing is refunded).
    await runCommand('LATE-1', {
      type: 'CompleteWithdrawal',
      data: { transactionHash: 'b'.repeat(64), resolvedBy: 'operator', reason: 'seen on the explorer' },
      metadata: { now: new Date() },
    });
    const before = await counter('outcome="failed",contradicts="true"');
    gated.open();
    expect(await round).toBe(0);
    expect(await findWithdrawal(dataSource.manager, MERCHANT, 'LATE-1')).toMatchObject({ status: 'COMPLETED', transaction_hash: 'b'.repeat(64) });
    expect(await lateResults('LATE-1')).toEqual([{ status_at_arrival: 'COMPLETED', outcome: 'failed', transaction_hash: null, contradicts: true }]);
    expect(await counter('outcome="failed",contradicts="true"')).toBe(before + 1);
    expect(errors).toEqual([expect.stringMatching(/late network result .*LATE-1.*CONTRADICTS/)]);
    // Nothing was published for it: the outbox has the request and the completion only.
    const published = await dataSource.query(`SELECT envelope->>'type' AS type FROM outbox WHERE envelope->>'subject' = $1 ORDER BY position`, [
      `merchant:${MERCHANT}/withdrawal:LATE-1`,
    ]);
    expect(published.map((row: { type: string }) => row.type)).toEqual(['WithdrawalRequested', 'WithdrawalCompleted']);
  });

  it('reconciles through the simulator: a key not yet sent is dropped, and the send still in flight is refused, not made', async () => {
    await request('DROP-1');
    const network = new SimulatedNetworkAdapter(dataSource, settings);
    const gated = new GatedAdapter(network);
    const sender = new WithdrawalSender(dataSource, ledger, gated, settings, new OffsetClock());
    const round = sender.sendDue();
    await gated.reached;
    const key = toWithdrawalStreamId(MERCHANT, 'DROP-1');
    const answer = await network.lookup(key);
    expect(answer).toEqual({ status: 'dropped', reason: expect.stringContaining('never sent') });
    const evidence = { operatorId: 'op-1', idempotencyKey: key, askedAt: new Date().toISOString(), answer };
    const reconciled = await runCommand('DROP-1', { type: 'ReconcileWithdrawal', data: { evidence }, metadata: { now: new Date() } });
    expect(reconciled.withdrawal).toMatchObject({ status: 'FAILED', reconciliation: evidence });
    gated.open();
    expect(await round).toBe(0);
    expect(await dataSource.query(`SELECT outcome, requests FROM simulated_network_sends WHERE idempotency_key = $1`, [key])).toEqual([
      { outcome: 'dropped', requests: 2 },
    ]);
    expect(await lateResults('DROP-1')).toEqual([{ status_at_arrival: 'FAILED', outcome: 'failed', transaction_hash: null, contradicts: false }]);
    expect((await findWithdrawal(dataSource.manager, MERCHANT, 'DROP-1'))?.reconciliation).toEqual(evidence);
    // A key that was sent answers with the send: asking never changes it.
    await request('SENT-1');
    await new WithdrawalSender(dataSource, ledger, network, settings, new OffsetClock()).sendDue();
    expect(await network.lookup(toWithdrawalStreamId(MERCHANT, 'SENT-1'))).toEqual({
      status: 'completed',
      transactionHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('fails sends to addresses the simulator is told to fail, with a reason', async () => {
    await request('FAIL-1');
    const sender = new WithdrawalSender(
      dataSource,
      ledger,
      new SimulatedNetworkAdapter(dataSource, { ...settings, simulator: { ...settings.simulator, failAddressPattern: /^TR7NH/ } }),
      settings,
      new OffsetClock(),
    );
    expect(await sender.sendDue()).toBe(1);
    expect(await findWithdrawal(dataSource.manager, MERCHANT, 'FAIL-1')).toMatchObject({
      status: 'FAILED',
      transaction_hash: null,
      failure_reason: 'the simulated network rejected the transfer',
    });
  });

  it("pages a merchant's withdrawals newest first, each once, across positions of different digit counts", async () => {
    // Last in this file: these 25 stay PENDING. Positions of 1 and 2 digits: "9" sorts after "25" as text, so a list
    // ordered by the position's text form repeats and skips withdrawals from page to page.
    const merchant = 'mch_paging_test';
    const orderIds = Array.from({ length: 25 }, (_, index) => `PAGE-${String(index).padStart(2, '0')}`);
    for (const orderId of orderIds) await request(orderId, merchant);
    const listed: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages += 1) {
      const page = await listWithdrawals(dataSource.manager, { merchantId: merchant, limit: 10, cursor });
      listed.push(...page.rows.map((row) => row.order_id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(listed).toEqual([...orderIds].reverse());
  });
});
