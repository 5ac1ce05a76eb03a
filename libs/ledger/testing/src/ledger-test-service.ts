import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION,
  PAYMENTS_TOPICS,
  paymentOrderKey,
  type PaymentOrderExternalEventData,
  type PaymentOrderExternalEventType,
  type PaymentOrderStatus,
} from '@mp/contracts-payments';
import type { BalancesView } from '@mp/contracts-ledger';
import { parseCurrencyTable, parseMinorUnits, parsePairTable, parsePositiveRate, type OperatorMoneyLimits } from '@mp/ledger-domain';
import { serviceDatabaseOptions } from '@mp/shared-data-access-postgres';
import { HealthModule } from '@mp/shared-health';
import { createEnvelope, KafkaMessageBroker, MESSAGE_BROKER, MessagingModule, MessagingTransportStrategy, type MessageEnvelope } from '@mp/shared-messaging';
import type { CustomStrategy } from '@nestjs/microservices';
import { ServiceAuthModule, ServiceKeyring, readServiceAuthConfig, type ServiceName } from '@mp/shared-service-auth';
import { ConfigReader } from '@mp/shared-util-config';
import { Client } from 'pg';
import {
  auditLedger,
  LEDGER_CONSUMERS,
  LEDGER_INTERNAL_ACCESS,
  LEDGER_MIGRATIONS,
  LedgerModule,
  OrphanHoldSweeper,
  type LedgerAuditReport,
  type LedgerSettings,
  type PaymentOrderDirectory,
} from '@mp/ledger-infrastructure';
import { eventually, requiredEnv, sourceEntryPoint, testKafkaBrokers, workspaceRoot } from '@mp/shared-testing';
import { OffsetClock } from '@mp/shared-util-clock';
import { DataSource } from 'typeorm';

export type PaymentEventType = Exclude<PaymentOrderExternalEventType, 'PaymentOrderPayerReportedPaid'>;

/** The order's identity and money, as every external payment-order event carries them. */
export type OrderFacts = Pick<PaymentOrderExternalEventData, 'merchantId' | 'orderId' | 'direction' | 'amountMinor' | 'feeMinor' | 'currency'>;

const STATUS_AFTER: Record<PaymentEventType, { status: PaymentOrderStatus; version: number }> = {
  PaymentOrderCreated: { status: 'PENDING', version: 1 },
  PaymentOrderAgentAssigned: { status: 'PENDING', version: 2 },
  PaymentOrderSucceeded: { status: 'SUCCEEDED', version: 3 },
  PaymentOrderFailed: { status: 'FAILED', version: 3 },
  PaymentOrderCancelled: { status: 'CANCELLED', version: 2 },
  PaymentOrderExpired: { status: 'EXPIRED', version: 2 },
};

/** An external payment-order event as the payments service publishes it (contracts' external-events). */
export function paymentOrderEvent(type: PaymentEventType, order: OrderFacts, id?: string): MessageEnvelope {
  const { status, version } = STATUS_AFTER[type];
  const now = new Date().toISOString();
  const agentId = type === 'PaymentOrderCreated' || type === 'PaymentOrderCancelled' || type === 'PaymentOrderExpired' ? null : 'agent_1';
  const data: PaymentOrderExternalEventData = {
    ...order,
    status,
    agentId,
    version,
    occurredAt: now,
    order: {
      order_id: order.orderId,
      direction: order.direction,
      status,
      sub_status: status === 'PENDING' ? (agentId ? 'agent_assigned' : 'awaiting_agent') : null,
      amount: order.amountMinor,
      fee: order.feeMinor,
      currency: order.currency,
      country: 'RU',
      method: 'bank_card',
      callback_url: 'https://shop.example/cb',
      failure_reason: status === 'FAILED' ? 'declined' : null,
      expires_at: now,
      created_at: now,
      updated_at: now,
    },
  };
  return createEnvelope({
    id,
    type,
    schemaVersion: PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION,
    source: 'payments',
    subject: `merchant:${order.merchantId}/order:${order.orderId}`,
    data,
    correlationId: `req_${randomBytes(4).toString('hex')}`,
  });
}

/**
 * Operator limits wide enough for the specs that are not about them: RUB→USDT around 0.01, up
 * to 10,000,000 RUB at once; one operator alone up to 1,000,000 RUB or USD and 10,000 USDT.
 */
export const TEST_OPERATOR_LIMITS: OperatorMoneyLimits = {
  referenceRates: parsePairTable('RUB/USDT:0.01', parsePositiveRate, 'a rate').table,
  rateBandBasisPoints: 200,
  conversionCapsMinor: parsePairTable('RUB/USDT:1000000000', parseMinorUnits, 'minor units').table,
  approvalThresholdsMinor: parseCurrencyTable('RUB:100000000,USD:100000000,USDT:10000000000').table,
  approvalTtlMs: 86_400_000,
};

/** No payments service here: the orphan-hold sweep is driven by its own tests, not by the timer. */
const TEST_LEDGER_SETTINGS: LedgerSettings = {
  commandPartitions: 3,
  paymentsInternalUrl: 'http://127.0.0.1:9',
  orphanHoldGraceMs: 15 * 60_000,
  orphanHoldSweepIntervalMs: 3_600_000,
  withdrawalsInternalUrl: 'http://127.0.0.1:9',
  conversionFeeBasisPoints: 100,
  operatorLimits: TEST_OPERATOR_LIMITS,
};

/** Service keys for this process's ledgers and the tests that call them as payments or the gateway would. */
const TEST_SERVICE_KEYS = new ServiceKeyring();

function testServiceAuthConfig() {
  const reader = new ConfigReader(TEST_SERVICE_KEYS.environmentOf('ledger'));
  const config = readServiceAuthConfig(reader, 'ledger', Object.keys(LEDGER_INTERNAL_ACCESS) as ServiceName[]);
  reader.assertValid();
  return config;
}

@Module({})
class LedgerTestAppModule {
  static forRoot(databaseUrl: string, namespace: string, poolMax: number, settings: LedgerSettings): DynamicModule {
    return {
      module: LedgerTestAppModule,
      imports: [
        ServiceAuthModule.forRoot(testServiceAuthConfig(), LEDGER_INTERNAL_ACCESS),
        TypeOrmModule.forRoot(serviceDatabaseOptions({ url: databaseUrl, poolMax, migrations: LEDGER_MIGRATIONS })),
        HealthModule.forRoot({ consumerLagMax: 0, healthCheckTimeoutMs: 2_000 }),
        MessagingModule.forRootAsync({ inject: [], useFactory: () => ({ clientId: 'ledger-test', brokers: testKafkaBrokers(), namespace }) }),
        LedgerModule.forRoot(settings),
      ],
    };
  }
}

/**
 * The ledger service wired exactly as apps/ledger wires it (same modules, same default pool of
 * 10 connections), in this process, on a private database and Kafka namespace, listening on a
 * free port. Plus what the tests need around it: a publisher of payment-order events, SQL on
 * its database, and the auditor (as a function and as the real command).
 */
export class LedgerTestService {
  readonly runId = `l${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  url = '';
  private app: NestFastifyApplication | null = null;
  private publisher: KafkaMessageBroker | null = null;

  static async start(options: { poolMax?: number; operatorLimits?: Partial<OperatorMoneyLimits> } = {}): Promise<LedgerTestService> {
    const service = new LedgerTestService();
    const admin = new Client({ connectionString: requiredEnv('TEST_PG_ADMIN_URL') });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${service.runId}"`);
    await admin.end();
    service.app = await NestFactory.create<NestFastifyApplication>(
      LedgerTestAppModule.forRoot(service.databaseUrl, service.runId, options.poolMax ?? 10, {
        ...TEST_LEDGER_SETTINGS,
        operatorLimits: { ...TEST_OPERATOR_LIMITS, ...options.operatorLimits },
      }),
      new FastifyAdapter(),
      { logger: ['warn', 'error'] },
    );
    service.app.connectMicroservice<CustomStrategy>({ strategy: new MessagingTransportStrategy(service.app.get(MESSAGE_BROKER), LEDGER_CONSUMERS) });
    await service.app.init();
    await service.app.startAllMicroservices();
    await service.app.listen(0, '127.0.0.1');
    service.url = await service.app.getUrl();
    service.publisher = new KafkaMessageBroker({
      clientId: 'ledger-test-publisher',
      brokers: testKafkaBrokers(),
      namespace: service.runId,
      log: () => undefined,
    });
    await service.publisher.connect();
    return service;
  }

  get databaseUrl(): string {
    const url = new URL(requiredEnv('TEST_PG_ADMIN_URL'));
    url.pathname = `/${this.runId}`;
    return url.toString();
  }

  async stop(): Promise<void> {
    await this.publisher?.disconnect();
    await this.app?.close();
  }

  /** Publishes to any topic (e.g. withdrawals.events), with the key its producer would use. */
  async publishTo(topic: string, key: string, envelopes: MessageEnvelope[]): Promise<void> {
    await this.publisher?.publish(envelopes.map((envelope) => ({ topic, key, envelope })));
  }

  /** Publishes to payments.order.events, keyed by order like the payments outbox does. */
  async publish(envelopes: MessageEnvelope[]): Promise<void> {
    await this.publisher?.publish(
      envelopes.map((envelope) => {
        const data = envelope.data as OrderFacts;
        return { topic: PAYMENTS_TOPICS.orderEvents, key: paymentOrderKey(data.merchantId, data.orderId), envelope };
      }),
    );
  }

  async query<T = Record<string, unknown>>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    return this.withClient(async (client) => (await client.query(sql, parameters)).rows as T[]);
  }

  /**
   * As the ledger's real callers call it: holds as payments, everything else as the gateway,
   * on behalf of the operator the body names (op_1 when it names none).
   */
  async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any; text: string; headers: Headers }> {
    const namedOperator = (body as { operator_id?: unknown } | undefined)?.operator_id;
    const operator = typeof namedOperator === 'string' && namedOperator !== '' ? namedOperator : 'op_1';
    const auth =
      path === '/internal/holds'
        ? await TEST_SERVICE_KEYS.headers('ledger', 'payments')
        : await TEST_SERVICE_KEYS.headers('ledger', 'gateway', { type: 'operator', id: operator });
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...auth },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed, text, headers: response.headers };
  }

  /** SQL through the service's own connection pool, with the session settings it runs under. */
  async serviceQuery<T = Record<string, unknown>>(sql: string): Promise<T[]> {
    if (!this.app) throw new Error('the ledger is not running');
    return this.app.get(DataSource).query(sql);
  }

  /** The service's own DataSource, to run its command handling directly. */
  get dataSource(): DataSource {
    if (!this.app) throw new Error('the ledger is not running');
    return this.app.get(DataSource);
  }

  /** A sweeper on this service's database that asks `directory` instead of the payments (and `withdrawals` instead of the withdrawals) service. */
  orphanHoldSweeper(directory: PaymentOrderDirectory, orphanHoldGraceMs: number, withdrawals: PaymentOrderDirectory = directory): OrphanHoldSweeper {
    if (!this.app) throw new Error('the ledger is not running');
    return new OrphanHoldSweeper(this.app.get(DataSource), { ...TEST_LEDGER_SETTINGS, orphanHoldGraceMs }, directory, withdrawals, new OffsetClock());
  }

  placeHold(merchantId: string, holdId: string, amountMinor: string, feeMinor = '0', currency = 'RUB') {
    return this.request('POST', '/internal/holds', {
      hold_id: holdId,
      merchant_id: merchantId,
      currency,
      amount_minor: amountMinor,
      fee_minor: feeMinor,
      reference: { kind: 'payment_order', id: holdId.split(':').pop() },
    });
  }

  async balances(merchantId: string): Promise<BalancesView> {
    const response = await this.request('GET', `/internal/merchants/${encodeURIComponent(merchantId)}/balances`);
    if (response.status !== 200) throw new Error(`balances answered ${response.status}: ${response.text}`);
    return response.body as BalancesView;
  }

  /** Polls the balances until they match, or fails with the last ones seen. */
  async eventuallyBalances(merchantId: string, expected: BalancesView, timeoutMs = 20_000): Promise<void> {
    // On a timeout, the balances read once more, for jest's diff against the expected ones.
    const last = await eventually(
      () => this.balances(merchantId),
      (balances) => JSON.stringify(balances) === JSON.stringify(expected),
      `the balances of ${merchantId}`,
      timeoutMs,
    ).catch(() => this.balances(merchantId));
    expect(last).toEqual(expected);
  }

  /** Waits until the consumer's inbox has claimed every one of these envelope ids. */
  async eventuallyConsumed(envelopeIds: string[], timeoutMs = 20_000): Promise<void> {
    const claimed = async () =>
      (
        await this.query<{ claimed: number }>(
          `SELECT count(*)::int AS claimed FROM inbox WHERE consumer = 'ledger.payment-events' AND message_id = ANY($1::uuid[])`,
          [envelopeIds],
        )
      )[0].claimed;
    await eventually(claimed, (count) => count === new Set(envelopeIds).size, `${envelopeIds.length} events consumed (claimed so far)`, timeoutMs);
  }

  audit(): Promise<LedgerAuditReport> {
    return this.withClient((client) => auditLedger(client));
  }

  /** The real auditor command, as an operator runs it (npm run ledger:audit), from its source: the integration tier builds nothing. */
  runAuditCommand(): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, sourceEntryPoint('apps/ledger/src/audit.ts'), {
        cwd: workspaceRoot,
        env: { PATH: process.env['PATH'] ?? '', LEDGER_DATABASE_URL: this.databaseUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }

  private async withClient<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: this.databaseUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }
}

export function newMerchantId(label: string): string {
  return `mch_${label}_${randomUUID().slice(0, 8)}`;
}
