/**
 * Goal: `npm run audit` passes on a consistent world spread over every service's database and
 * names exactly the invariant that breaks when one is broken: a duplicated order or withdrawal,
 * books that do not balance, a negative available, an orphan hold, a lost or phantom order, a
 * terminal order without its callback, a withdrawal broadcast twice or refunded after it went
 * out. Method: each service's schema from its real migrations (SERVICE_MIGRATIONS, as init runs
 * them) on the real PostgreSQL server; a small world written with SQL, as the services write it;
 * each break made with SQL as a bad migration or a careless operator would, then undone.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AUDITED_DATABASES, runAudit, type AcknowledgementRecord, type AuditConnections, type AuditedDatabase } from '@mp/audit';
import { handleLedgerCommand } from '@mp/ledger-infrastructure';
import { eventDigest } from '@mp/shared-messaging';
import { sourceEntryPoint } from '@mp/shared-testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SERVICE_MIGRATIONS } from './provision';

const adminUrl = process.env.TEST_PG_ADMIN_URL as string;
const workspaceRoot = resolve(__dirname, '../../..');
const prefix = `audit_${randomBytes(3).toString('hex')}`;
const urlOf = (service: AuditedDatabase) => Object.assign(new URL(adminUrl), { pathname: `/${prefix}_${service}` }).toString();

const live = 'mrc_live_1';
const sandbox = 'test_mrc_live_1';
const noDefaultUrl = 'mrc_no_url';
const ISO = '2026-01-01T00:00:00Z';

describe('npm run audit: every invariant over every service database', () => {
  const clients = {} as Record<AuditedDatabase, Client>;
  const db = (service: AuditedDatabase) => clients[service];
  const acknowledged: AcknowledgementRecord[] = [
    { merchant_id: live, order_id: 'PAY-1', kind: 'payment', acknowledged: true },
    { merchant_id: live, order_id: 'PAY-REFUSED', kind: 'payment', acknowledged: false },
    { merchant_id: live, order_id: 'WD-1', kind: 'withdrawal', acknowledged: true },
  ];

  /** The names of the checks that failed, and the skipped ones, for one audit in process. */
  async function failing(acknowledgements?: AcknowledgementRecord[]): Promise<{ failed: string[]; skipped: string[]; messages: string[]; sandbox: string[] }> {
    const report = await runAudit({ connections: clients as AuditConnections, acknowledgements });
    const failed = report.checks.filter((check) => check.status === 'failed');
    return {
      failed: failed.map((check) => check.name),
      skipped: report.checks.filter((check) => check.status === 'skipped').map((check) => check.name),
      messages: failed.flatMap((check) => check.violations.map((violation) => violation.message)),
      sandbox: failed.flatMap((check) => check.sandboxViolations.map((violation) => violation.message)),
    };
  }

  /** Breaks an invariant, sees exactly `checks` fail, undoes it and sees the audit pass again. */
  async function broken(service: AuditedDatabase, breakIt: string, undo: string, checks: string[], acknowledgements = acknowledged): Promise<string[]> {
    await db(service).query(breakIt);
    try {
      const result = await failing(acknowledgements);
      expect(result.failed).toEqual(checks);
      return [...result.messages, ...result.sandbox];
    } finally {
      await db(service).query(undo);
      expect((await failing(acknowledgements)).failed).toEqual([]);
    }
  }

  /** An event as appendToStream writes it: its hash chained to the stream's event before it (event_store_chain). */
  const event = (streamId: string, version: number, type: string, data: Record<string, unknown>) => {
    const envelope = { type, data };
    return {
      sql: `INSERT INTO event_store (stream_id, stream_version, event_id, event_type, schema_version, envelope, hash)
            SELECT $1, $2, $3, $4, 1, $5, chain_hash FROM event_store_chain($1, $2 - 1, ARRAY[$6::bytea])`,
      values: [streamId, version, randomUUID(), type, JSON.stringify(envelope), eventDigest(streamId, version, envelope)],
    };
  };
  const delivery = (merchantId: string, kind: string, subjectId: string, callbackType: string, status: string) => ({
    sql: `INSERT INTO callback_deliveries (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type, state_version, target_url, body, status, created_at)
          VALUES ($1, $2, 'x', 'x', $3, $4, $5, $6, 2, $8, '{}', $7, now())`,
    // A delivery awaiting its merchant's first default URL has none yet.
    values: [
      `whk_${randomUUID()}`,
      randomUUID(),
      merchantId,
      kind,
      subjectId,
      callbackType,
      status,
      status === 'awaiting_url' ? '' : 'https://merchant.example/cb',
    ],
  });
  const paymentOrder = (merchantId: string, orderId: string, status: string) => ({
    sql: `INSERT INTO payment_orders (merchant_id, order_id, direction, status, amount_minor, fee_minor, currency, country, method, callback_url, expires_at, created_at, updated_at, stream_version)
          VALUES ($1, $2, 'incoming', $3, 100000, 1500, 'RUB', 'RU', 'card', 'https://merchant.example/cb', '${ISO}', '${ISO}', '${ISO}', 2)`,
    values: [merchantId, orderId, status],
  });
  const withdrawal = (merchantId: string, orderId: string, status: string, hash: string | null) => ({
    sql: `INSERT INTO withdrawals (merchant_id, order_id, status, send_progress, currency, network, balance_asset, amount_minor, network_fee_minor, address, transaction_hash, created_at, updated_at, stream_version)
          VALUES ($1, $2, $3, 'finished', 'USDT', 'TRON', 'USDT', 5000000, 100000, 'TXYZ', $4, '${ISO}', '${ISO}', 3)`,
    values: [merchantId, orderId, status, hash],
  });

  beforeAll(async () => {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      for (const service of AUDITED_DATABASES) await admin.query(`CREATE DATABASE "${prefix}_${service}"`);
    } finally {
      await admin.end();
    }
    for (const service of AUDITED_DATABASES) {
      const source = new DataSource({ type: 'postgres', url: urlOf(service), migrations: SERVICE_MIGRATIONS[service], migrationsTransactionMode: 'each' });
      await source.initialize();
      await source.runMigrations();
      await source.destroy();
      clients[service] = new Client({ connectionString: urlOf(service) });
      await clients[service].connect();
    }

    // The world: a live merchant with its sandbox twin and one without a default callback URL.
    const statements = {
      gateway: [
        {
          sql: `INSERT INTO merchants (merchant_id, name, default_callback_url) VALUES ($1, 'Live', 'https://merchant.example/default'), ($2, 'No URL', NULL)`,
          values: [live, noDefaultUrl],
        },
        {
          sql: `INSERT INTO merchants (merchant_id, name, default_callback_url, mode, live_merchant_id) VALUES ($1, 'Sandbox', 'https://merchant.example/default', 'test', $2)`,
          values: [sandbox, live],
        },
      ],
      payments: [
        paymentOrder(live, 'PAY-1', 'SUCCEEDED'),
        event(`payment-order:${live}:PAY-1`, 1, 'IncomingPaymentCreated', { merchantId: live, orderId: 'PAY-1' }),
        paymentOrder(live, 'PAY-OPEN', 'PENDING'),
        event(`payment-order:${live}:PAY-OPEN`, 1, 'IncomingPaymentCreated', { merchantId: live, orderId: 'PAY-OPEN' }),
        paymentOrder(sandbox, 'PAY-T', 'EXPIRED'),
        event(`payment-order:${sandbox}:PAY-T`, 1, 'IncomingPaymentCreated', { merchantId: sandbox, orderId: 'PAY-T' }),
      ],
      withdrawals: [
        withdrawal(live, 'WD-1', 'COMPLETED', 'hash-wd-1'),
        event(`withdrawal:${live}:WD-1`, 1, 'WithdrawalRequested', { merchantId: live, orderId: 'WD-1' }),
        event(`withdrawal:${live}:WD-1`, 2, 'WithdrawalCompleted', { merchantId: live, orderId: 'WD-1' }),
        {
          sql: `INSERT INTO simulated_network_sends (idempotency_key, network, address, amount_minor, outcome, transaction_hash, requests) VALUES ($1, 'TRON', 'TXYZ', 5000000, 'completed', 'hash-wd-1', 2)`,
          values: [`withdrawal:${live}:WD-1`],
        },
        // No default URL: its outcome has no destination and owes no callback.
        withdrawal(noDefaultUrl, 'WD-2', 'FAILED', null),
        event(`withdrawal:${noDefaultUrl}:WD-2`, 1, 'WithdrawalRequested', { merchantId: noDefaultUrl, orderId: 'WD-2' }),
      ],
      disputes: [
        {
          sql: `INSERT INTO disputes (dispute_id, merchant_id, order_id, status, currency, created_at, updated_at, stream_version) VALUES ('dsp_1', $1, 'PAY-1', 'REJECTED', 'RUB', now(), now(), 2)`,
          values: [live],
        },
      ],
      callbacks: [
        delivery(live, 'payment_order', 'PAY-1', 'payment.succeeded', 'succeeded'),
        delivery(sandbox, 'payment_order', 'PAY-T', 'payment.expired', 'pending'),
        delivery(live, 'withdrawal', 'WD-1', 'withdrawal.completed', 'endpoint_disabled'),
        delivery(live, 'dispute', 'dsp_1', 'dispute.rejected', 'succeeded'),
        // The merchant without a default URL: its outcome is kept until it sets one.
        delivery(noDefaultUrl, 'withdrawal', 'WD-2', 'withdrawal.failed', 'awaiting_url'),
      ],
    } as Partial<Record<AuditedDatabase, Array<{ sql: string; values: unknown[] }>>>;
    for (const [service, list] of Object.entries(statements)) for (const { sql, values } of list) await db(service as AuditedDatabase).query(sql, values);

    // The books through the ledger's own command handling: PAY-1's 100000 credited (fee 1500),
    // then a payout hold of 20000 + 300, pending.
    const ledger = new DataSource({ type: 'postgres', url: urlOf('ledger') });
    await ledger.initialize();
    try {
      await ledger.transaction(async (manager) => {
        const metadata = { now: new Date(ISO) };
        await handleLedgerCommand(
          { manager },
          live,
          'RUB',
          { type: 'CreditPayIn', data: { orderId: 'PAY-1', amountMinor: 100_000n, feeMinor: 1_500n, reason: 'payin_succeeded' }, metadata },
          { id: randomUUID(), correlationId: 'audit-spec' },
        );
        await handleLedgerCommand(
          { manager },
          live,
          'RUB',
          {
            type: 'PlaceHold',
            data: { holdId: 'payout:P-1', amountMinor: 20_000n, feeMinor: 300n, reference: { kind: 'payment_order', id: 'P-1' } },
            metadata,
          },
          { id: randomUUID(), correlationId: 'audit-spec' },
        );
      });
    } finally {
      await ledger.destroy();
    }
  });

  afterAll(async () => {
    await Promise.all(Object.values(clients).map((client) => client.end()));
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    for (const service of AUDITED_DATABASES) await admin.query(`DROP DATABASE IF EXISTS "${prefix}_${service}" WITH (FORCE)`);
    await admin.end();
  });

  it('passes on a consistent world, and skips the acknowledgement check without a record', async () => {
    expect(await failing(acknowledged)).toEqual({ failed: [], skipped: [], messages: [], sandbox: [] });
    expect((await failing()).skipped).toEqual(['acknowledged-orders-exist']);
  });

  it('finds books that do not balance per currency (and the replay sees the balance disagree with its postings)', async () => {
    const messages = await broken(
      'ledger',
      `UPDATE ledger_balances SET fee_revenue = fee_revenue + 1`,
      `UPDATE ledger_balances SET fee_revenue = fee_revenue - 1`,
      ['postings-balance-per-currency', 'ledger-replay-and-conversions'],
    );
    expect(messages[0]).toBe('RUB: the accounts of all merchants sum to 1, not 0');
  });

  it('finds a negative available balance', async () => {
    await db('ledger').query(`ALTER TABLE ledger_balances DROP CONSTRAINT ledger_balances_settlement_available_check`);
    const messages = await broken(
      'ledger',
      `UPDATE ledger_balances SET settlement_available = -1, clearing = clearing + 78201`,
      `UPDATE ledger_balances SET settlement_available = 78200, clearing = clearing - 78201`,
      ['ledger-replay-and-conversions', 'available-not-negative'],
    );
    expect(messages).toContain(`merchant ${live} RUB: available -1, frozen 20300, deposit 0`);
  });

  it('finds an orphan hold: frozen money no pending hold explains', async () => {
    const messages = await broken('ledger', `UPDATE ledger_holds SET status = 'voided'`, `UPDATE ledger_holds SET status = 'pending'`, [
      'ledger-replay-and-conversions',
      'frozen-equals-open-holds',
    ]);
    expect(messages).toContain(`merchant ${live} RUB: frozen 20300, pending holds 0`);
  });

  it('finds a duplicated order and a duplicated withdrawal', async () => {
    const duplicate = event(`payment-order:${live}:PAY-1-again`, 1, 'IncomingPaymentCreated', { merchantId: live, orderId: 'PAY-1' });
    await db('payments').query(duplicate.sql, duplicate.values);
    const again = event(`withdrawal:${live}:WD-1-again`, 1, 'WithdrawalRequested', { merchantId: live, orderId: 'WD-1' });
    await db('withdrawals').query(again.sql, again.values);
    // The event store is append-only; this test's databases are its own, so the trigger goes for the cleanup.
    const undo = (service: AuditedDatabase, stream: string) =>
      `ALTER TABLE event_store DISABLE TRIGGER event_store_append_only; DELETE FROM event_store WHERE stream_id = '${stream}'; ALTER TABLE event_store ENABLE TRIGGER event_store_append_only`;
    try {
      const result = await failing(acknowledged);
      expect(result.failed).toEqual(['one-payment-order-per-order-id', 'one-withdrawal-per-order-id']);
      expect(result.messages).toEqual([`merchant ${live} order PAY-1 was created 2 times`, `merchant ${live} withdrawal WD-1 was created 2 times`]);
    } finally {
      await db('payments').query(undo('payments', `payment-order:${live}:PAY-1-again`));
      await db('withdrawals').query(undo('withdrawals', `withdrawal:${live}:WD-1-again`));
    }
    expect((await failing(acknowledged)).failed).toEqual([]);
  });

  it('finds an altered, a deleted and two swapped events in an event store, and names each: store, stream, version, global position', async () => {
    const streams = ['altered', 'deleted', 'swapped'].map((name) => `dispute:${live}:${name}`);
    for (const stream of streams)
      for (let version = 1; version <= 3; version += 1) {
        const appended = event(stream, version, 'DisputeNoted', { merchantId: live, note: `note ${version}` });
        await db('disputes').query(appended.sql, appended.values);
      }
    const position = async (stream: string, version: number) =>
      (
        await db('disputes').query<{ global_position: string }>(`SELECT global_position FROM event_store WHERE stream_id = $1 AND stream_version = $2`, [
          stream,
          version,
        ])
      ).rows[0].global_position;
    const positions = [await position(streams[0], 2), await position(streams[1], 3), await position(streams[2], 1)];
    await db('disputes').query(`ALTER TABLE event_store DISABLE TRIGGER event_store_append_only`);
    try {
      await db('disputes').query(
        `UPDATE event_store SET envelope = jsonb_set(envelope, '{data,note}', '"changed"') WHERE stream_id = $1 AND stream_version = 2`,
        [streams[0]],
      );
      await db('disputes').query(`DELETE FROM event_store WHERE stream_id = $1 AND stream_version = 2`, [streams[1]]);
      await db('disputes').query(
        `UPDATE event_store e SET envelope = o.envelope FROM event_store o WHERE e.stream_id = $1 AND o.stream_id = $1 AND e.stream_version IN (1, 2) AND o.stream_version = 3 - e.stream_version`,
        [streams[2]],
      );
      const result = await failing(acknowledged);
      expect(result.failed).toEqual(['event-hash-chains']);
      expect(result.messages).toEqual([
        `disputes: altered: stream ${streams[0]} version 2 (global position ${positions[0]}): its stored event no longer gives its hash (changed after it was written)`,
        `disputes: missing: stream ${streams[1]} version 2 missing (before global position ${positions[1]})`,
        `disputes: reordered: stream ${streams[2]} version 1 (global position ${positions[2]}): holds the event written as version 2 and the other way round (swapped)`,
      ]);
      await db('disputes').query(`DELETE FROM event_store WHERE stream_id = ANY($1)`, [streams]);
    } finally {
      await db('disputes').query(`ALTER TABLE event_store ENABLE TRIGGER event_store_append_only`);
    }
    expect((await failing(acknowledged)).failed).toEqual([]);
  });

  it('finds a lost acknowledged order and a phantom refused one', async () => {
    const records: AcknowledgementRecord[] = [
      ...acknowledged,
      { merchant_id: live, order_id: 'PAY-LOST', kind: 'payment', acknowledged: true },
      { merchant_id: live, order_id: 'PAY-OPEN', kind: 'payment', acknowledged: false },
    ];
    const result = await failing(records);
    expect(result.failed).toEqual(['acknowledged-orders-exist']);
    expect(result.messages).toEqual([
      `merchant ${live} payment PAY-LOST was acknowledged but does not exist (lost)`,
      `merchant ${live} payment PAY-OPEN was refused but exists (phantom)`,
    ]);
  });

  it('finds a terminal order without its callback, and reports a sandbox merchant’s apart', async () => {
    const undo = `UPDATE callback_deliveries SET status = CASE subject_id WHEN 'PAY-1' THEN 'succeeded' ELSE status END, callback_type = CASE subject_id WHEN 'PAY-T' THEN 'payment.expired' ELSE callback_type END`;
    await db('callbacks').query(
      `UPDATE callback_deliveries SET status = CASE subject_id WHEN 'PAY-1' THEN 'failed' ELSE status END, callback_type = CASE subject_id WHEN 'PAY-T' THEN 'payment.failed' ELSE callback_type END`,
    );
    try {
      expect(await failing(acknowledged)).toEqual({
        failed: ['terminal-objects-have-callbacks'],
        skipped: [],
        messages: [`merchant ${live} payment_order PAY-1: payment.succeeded only failed`],
        sandbox: [`merchant ${sandbox} payment_order PAY-T: payment.expired has no delivery`],
      });
    } finally {
      await db('callbacks').query(undo);
    }
    expect((await failing(acknowledged)).failed).toEqual([]);
  });

  it('finds a withdrawal broadcast twice', async () => {
    const second = event(`withdrawal:${live}:WD-1`, 3, 'WithdrawalCompleted', { merchantId: live, orderId: 'WD-1' });
    await db('withdrawals').query(second.sql, second.values);
    await db('withdrawals').query(
      `INSERT INTO simulated_network_sends (idempotency_key, network, address, amount_minor, outcome, transaction_hash) VALUES ('withdrawal:${live}:WD-9', 'TRON', 'TXYZ', 1, 'completed', 'hash-wd-9')`,
    );
    try {
      const result = await failing(acknowledged);
      expect(result.failed).toEqual(['withdrawal-broadcast-once']);
      expect(result.messages).toEqual([
        `withdrawal withdrawal:${live}:WD-1 completed 2 times`,
        `the network sent withdrawal:${live}:WD-9 (transaction hash-wd-9) but no such withdrawal exists`,
      ]);
    } finally {
      await db('withdrawals').query(
        `ALTER TABLE event_store DISABLE TRIGGER event_store_append_only; DELETE FROM event_store WHERE stream_id = 'withdrawal:${live}:WD-1' AND stream_version = 3; ALTER TABLE event_store ENABLE TRIGGER event_store_append_only; DELETE FROM simulated_network_sends WHERE idempotency_key = 'withdrawal:${live}:WD-9'`,
      );
    }
    expect((await failing(acknowledged)).failed).toEqual([]);
  });

  it('finds a withdrawal refunded after the network sent it', async () => {
    const messages = await broken(
      'withdrawals',
      `UPDATE withdrawals SET status = 'FAILED' WHERE order_id = 'WD-1'`,
      `UPDATE withdrawals SET status = 'COMPLETED' WHERE order_id = 'WD-1'`,
      ['terminal-objects-have-callbacks', 'no-refund-after-successful-broadcast'],
    );
    expect(messages).toContain(`withdrawal withdrawal:${live}:WD-1 is FAILED but the network sent it (transaction hash-wd-1)`);
  });

  it('runs as the real command: exit 1 and the human report on a violation, JSON with --json, exit 0 when the books agree', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'audit-'));
    const file = join(directory, 'acknowledged.jsonl');
    writeFileSync(file, `${acknowledged.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const passing = await command(['--acknowledged', file]);
    expect(passing.code).toBe(0);
    expect(passing.stdout).toMatch(/^PASSED {2}acknowledged-orders-exist$/m);
    expect(passing.stdout).toMatch(/^OK: 11 check\(s\) passed$/m);

    await db('ledger').query(`UPDATE ledger_holds SET status = 'voided'`);
    try {
      const failed = await command(['--json']);
      expect(failed.code).toBe(1);
      const report = JSON.parse(failed.stdout) as { ok: boolean; checks: Array<{ name: string; status: string }> };
      expect(report.ok).toBe(false);
      expect(report.checks.filter((check) => check.status !== 'passed').map((check) => `${check.name} ${check.status}`)).toEqual([
        'ledger-replay-and-conversions failed',
        'frozen-equals-open-holds failed',
        'acknowledged-orders-exist skipped',
      ]);
    } finally {
      await db('ledger').query(`UPDATE ledger_holds SET status = 'pending'`);
    }

    writeFileSync(file, '{"merchant_id": "m", "order_id": "o", "kind": "refund", "acknowledged": true}\n');
    const refused = await command(['--acknowledged', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}:1: expected {"merchant_id": string`);
  }, 60_000);

  function command(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const urls = Object.fromEntries(AUDITED_DATABASES.map((service) => [`${service.toUpperCase()}_DATABASE_URL`, urlOf(service)]));
    return new Promise((resolve) => {
      // From source: the integration tier builds nothing.
      const child = spawn(process.execPath, [...sourceEntryPoint('apps/ops/src/audit.ts'), ...args], {
        cwd: workspaceRoot,
        env: { PATH: process.env['PATH'] ?? '', ...urls },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }
});
