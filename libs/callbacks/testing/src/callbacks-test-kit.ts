import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DEFAULT_ENDPOINT_DISABLING, DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from '@mp/callbacks-domain';
import { merchantWebhookProfilePath, type CallbackDestinationRules, type MerchantWebhookProfile } from '@mp/contracts-callbacks';
import { ServiceAuthModule, ServiceKeyring, ServiceTokenVerifier, parsePublicKey, readServiceAuthConfig } from '@mp/shared-service-auth';
import { ConfigReader } from '@mp/shared-util-config';
import {
  PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION,
  PAYMENTS_TOPICS,
  paymentOrderKey,
  type PaymentOrderExternalEventData,
  type PaymentOrderExternalEventType,
  type PaymentOrderStatus,
} from '@mp/contracts-payments';
import { serviceDatabaseOptions } from '@mp/shared-data-access-postgres';
import { HealthModule } from '@mp/shared-health';
import { createEnvelope, KafkaMessageBroker, MessagingModule, type MessageEnvelope } from '@mp/shared-messaging';
import { Client } from 'pg';
import {
  CALLBACKS_INTERNAL_ACCESS,
  CALLBACKS_MIGRATIONS,
  CallbacksModule,
  connectCallbackConsumers,
  type CallbacksSettings,
  type Lookup,
} from '@mp/callbacks-infrastructure';
import { CallbackReceiver, eventually, freePort, requiredEnv, testKafkaBrokers, workspaceRoot, type CallbackReceiverOptions } from '@mp/shared-testing';

/** The service keys of every dispatcher this process starts and of the fake gateway and the tests that call it. */
export const TEST_SERVICE_KEYS = new ServiceKeyring();

/**
 * Test-only DNS: names in the map resolve as given, everything else through the system resolver.
 * A name mapped to null (or to a function answering null) does not exist: ENOTFOUND, as a
 * merchant's dead domain gives.
 */
export function mappedLookup(names: Record<string, string | null | (() => string | null)>): Lookup {
  const lookup = (hostname: string, options: object, callback: (error: Error | null, address: unknown, family?: number) => void) => {
    const mapped = names[hostname];
    if (mapped === undefined) return (dnsLookup as unknown as (h: string, o: object, c: typeof callback) => void)(hostname, options, callback);
    const address = typeof mapped === 'function' ? mapped() : mapped;
    if (address === null) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), undefined);
    const family = address.includes(':') ? 6 : 4;
    if ((options as { all?: boolean }).all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  return lookup as unknown as Lookup;
}

/** The receivers one spec file starts (answering 204 unless told otherwise), stopped together in its afterAll. */
export function receiverPool(): { start: (answer?: CallbackReceiverOptions['answer']) => Promise<CallbackReceiver>; stopAll: () => Promise<void> } {
  const started: CallbackReceiver[] = [];
  return {
    start: async (answer = () => ({ status: 204 })) => {
      const receiver = await CallbackReceiver.start({ answer });
      started.push(receiver);
      return receiver;
    },
    stopAll: async () => {
      await Promise.all(started.map((receiver) => receiver.stop()));
    },
  };
}

/**
 * Stands in for the gateway's internal listener over real HTTP (same path, same service-token
 * check, same contract), so the dispatcher's tests need no gateway process.
 */
export class FakeGatewayInternal {
  readonly profiles = new Map<string, MerchantWebhookProfile>();
  requests = 0;
  private server: Server | null = null;

  static async start(): Promise<FakeGatewayInternal> {
    const fake = new FakeGatewayInternal();
    const verifier = new ServiceTokenVerifier('gateway', new Map([['callbacks', [parsePublicKey(TEST_SERVICE_KEYS.keys.callbacks.publicKey)]]]));
    fake.server = createServer(async (request, response) => {
      fake.requests += 1;
      if (
        !(await verifier.verify(request.headers.authorization).then(
          () => true,
          () => false,
        ))
      )
        return void response.writeHead(401).end();
      const profile = [...fake.profiles.values()].find((candidate) => merchantWebhookProfilePath(candidate.merchant_id) === request.url);
      if (!profile) return void response.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"NOT_FOUND"}');
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(profile));
    });
    await new Promise<void>((resolve) => fake.server?.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  /** A merchant with one webhook secret (or two, as during a rotation overlap). */
  addMerchant(secrets: string[] = [newTestWebhookSecret()], defaultCallbackUrl: string | null = null): { merchantId: string; secrets: string[] } {
    const merchantId = `mch_${randomBytes(12).toString('hex')}`;
    this.profiles.set(merchantId, {
      merchant_id: merchantId,
      status: 'active',
      default_callback_url: defaultCallbackUrl,
      webhook_secrets: secrets.map((secret, index) => ({
        secret,
        role: index === 0 ? 'current' : 'previous',
        valid_until: index === 0 ? null : new Date(Date.now() + 3_600_000).toISOString(),
      })),
    });
    return { merchantId, secrets };
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export function newTestWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const STATUS_BY_EVENT: Record<string, PaymentOrderStatus> = {
  PaymentOrderSucceeded: 'SUCCEEDED',
  PaymentOrderFailed: 'FAILED',
  PaymentOrderCancelled: 'CANCELLED',
  PaymentOrderExpired: 'EXPIRED',
};

/** An external payment-order event exactly as libs/contracts/payments/src/external-events.ts defines it. */
export function externalPaymentEvent(
  type: PaymentOrderExternalEventType,
  order: { merchantId: string; orderId: string; callbackUrl: string; version?: number; direction?: 'incoming' | 'outgoing' },
): MessageEnvelope<PaymentOrderExternalEventType, PaymentOrderExternalEventData> {
  const status = STATUS_BY_EVENT[type] ?? 'PENDING';
  const now = new Date().toISOString();
  const direction = order.direction ?? 'incoming';
  return createEnvelope({
    type,
    schemaVersion: PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION,
    source: 'payments',
    subject: `merchant:${order.merchantId}/order:${order.orderId}`,
    correlationId: `req_${randomBytes(4).toString('hex')}`,
    data: {
      merchantId: order.merchantId,
      orderId: order.orderId,
      direction,
      status,
      amountMinor: '150050',
      feeMinor: '0',
      currency: 'RUB',
      agentId: 'agt_1',
      version: order.version ?? 3,
      occurredAt: now,
      order: {
        order_id: order.orderId,
        direction,
        status,
        sub_status: null,
        amount: '1500.50',
        fee: '0.00',
        currency: 'RUB',
        country: 'RU',
        method: 'card',
        callback_url: order.callbackUrl,
        failure_reason: status === 'FAILED' ? 'declined' : null,
        expires_at: now,
        created_at: now,
        updated_at: now,
        ...(direction === 'outgoing' ? { account_number_masked: '•••• 1234' } : {}),
      },
    },
  });
}

/** Test receivers' destination rules: http, any port (production: https, CALLBACK_ALLOWED_PORTS). */
export const TEST_DESTINATION_RULES: CallbackDestinationRules = { allowHttp: true, allowedPorts: [[1, 65535]] };

/** Test settings: loopback allowed explicitly (receivers listen on 127.0.0.1), short polls and timeouts. */
export function testCallbacksSettings(gatewayInternalUrl: string, overrides: Partial<CallbacksSettings> = {}): CallbacksSettings {
  return {
    instanceId: `cb-test-${randomBytes(3).toString('hex')}`,
    topicPartitions: 3,
    retrySchedule: parseRetrySchedule(DEFAULT_RETRY_SCHEDULE),
    attemptTimeoutMs: 1_500,
    perOriginConcurrency: 4,
    circuitFailureThreshold: 5,
    circuitCooldownMs: 30_000,
    endpointDisabling: {
      failureThreshold: DEFAULT_ENDPOINT_DISABLING.failureThreshold,
      minimumDurationMs: DEFAULT_ENDPOINT_DISABLING.minimumDurationMinutes * 60_000,
    },
    totalConcurrency: 32,
    pollIntervalMs: 100,
    leaseMs: 10_000,
    allowedDestinations: ['127.0.0.1'],
    // Receivers are plain http on ephemeral ports: the test settings allow both, as ALLOW_HTTP_CALLBACK_URLS and CALLBACK_ALLOWED_PORTS do below.
    destinationRules: TEST_DESTINATION_RULES,
    gatewayInternalUrl,
    profileCacheTtlMs: 0,
    testClockEnabled: true,
    ...overrides,
  };
}

/** The dispatcher's built JavaScript (tools/build-workspace.mjs builtEntry): `npm test` builds dist/ before any test runs. */
const DISPATCHER_BUILT_ENTRY = join(workspaceRoot, 'dist/apps/callback-dispatcher/src/main.js');

/** Created, consumers connected and started, then listening, as apps/callback-dispatcher/src/main.ts does. */
async function startDispatcherApp(module: DynamicModule): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), { logger: ['warn', 'error'] });
  connectCallbackConsumers(app);
  await app.init();
  await app.startAllMicroservices();
  await app.listen(0, '127.0.0.1');
  return app;
}

/** As the app reads it: the same keys as a dispatcher process of this test run. */
function testServiceAuthConfig() {
  const reader = new ConfigReader(TEST_SERVICE_KEYS.environmentOf('callbacks'));
  const config = readServiceAuthConfig(reader, 'callbacks', ['gateway', 'test-harness']);
  reader.assertValid();
  return config;
}

@Module({})
class CallbacksTestAppModule {
  static forRoot(databaseUrl: string, namespace: string, settings: CallbacksSettings, lookup?: Lookup): DynamicModule {
    return {
      module: CallbacksTestAppModule,
      imports: [
        ServiceAuthModule.forRoot(testServiceAuthConfig(), CALLBACKS_INTERNAL_ACCESS),
        TypeOrmModule.forRoot(serviceDatabaseOptions({ url: databaseUrl, poolMax: 5, migrations: CALLBACKS_MIGRATIONS })),
        HealthModule.forRoot({ consumerLagMax: 0, healthCheckTimeoutMs: 2_000 }),
        MessagingModule.forRootAsync({ inject: [], useFactory: () => ({ clientId: 'callbacks-test', brokers: testKafkaBrokers(), namespace }) }),
        CallbacksModule.forRoot(settings, { lookup }),
      ],
    };
  }
}

/**
 * The dispatcher wired as apps/callback-dispatcher wires it, in this process (or as a real
 * process for crash tests), on a private database and Kafka namespace, plus a publisher of
 * external events and a fake gateway internal listener.
 */
export class CallbacksTestService {
  readonly runId = `c${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  url = '';
  gateway!: FakeGatewayInternal;
  private app: NestFastifyApplication | null = null;
  private readonly replicas: NestFastifyApplication[] = [];
  private child: { process: ChildProcess; exited: Promise<number | null>; output: string[] } | null = null;
  private publisher: KafkaMessageBroker | null = null;

  static async start(options: { settings?: Partial<CallbacksSettings>; lookup?: Lookup; asProcess?: boolean } = {}): Promise<CallbacksTestService> {
    const service = new CallbacksTestService();
    const admin = new Client({ connectionString: requiredEnv('TEST_PG_ADMIN_URL') });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${service.runId}"`);
    await admin.end();
    service.gateway = await FakeGatewayInternal.start();
    service.publisher = new KafkaMessageBroker({
      clientId: 'callbacks-test-publisher',
      brokers: testKafkaBrokers(),
      namespace: service.runId,
      log: () => undefined,
    });
    await service.publisher.connect();
    if (options.asProcess) await service.startProcess();
    else {
      const settings = testCallbacksSettings(service.gateway.url, options.settings);
      service.app = await startDispatcherApp(CallbacksTestAppModule.forRoot(service.databaseUrl, service.runId, settings, options.lookup));
      service.url = await service.app.getUrl();
    }
    return service;
  }

  get databaseUrl(): string {
    const url = new URL(requiredEnv('TEST_PG_ADMIN_URL'));
    url.pathname = `/${this.runId}`;
    return url.toString();
  }

  /** Another in-process replica on the same database and topics (its own instance id, same consumer group). */
  async startReplica(settings: Partial<CallbacksSettings> = {}): Promise<void> {
    const replica = await startDispatcherApp(CallbacksTestAppModule.forRoot(this.databaseUrl, this.runId, testCallbacksSettings(this.gateway.url, settings)));
    this.replicas.push(replica);
  }

  /** apps/callback-dispatcher as a real process (so it can be SIGKILLed), on a fixed port across restarts. */
  async startProcess(port?: number): Promise<void> {
    const listenPort = port ?? (this.url ? Number(new URL(this.url).port) : await freePort());
    const output: string[] = [];
    const child = spawn(process.execPath, ['--enable-source-maps', DISPATCHER_BUILT_ENTRY], {
      cwd: workspaceRoot,
      env: {
        PATH: process.env['PATH'] ?? '',
        KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
        KAFKA_NAMESPACE: this.runId,
        KAFKA_TOPIC_PARTITIONS: '3',
        CALLBACKS_HTTP_PORT: String(listenPort),
        CALLBACKS_DATABASE_URL: this.databaseUrl,
        GATEWAY_INTERNAL_URL: this.gateway.url,
        ...TEST_SERVICE_KEYS.environmentOf('callbacks'),
        CALLBACK_ALLOWED_DESTINATIONS: '127.0.0.1',
        ALLOW_HTTP_CALLBACK_URLS: 'true',
        CALLBACK_ALLOWED_PORTS: '1-65535',
        CALLBACK_POLL_INTERVAL_MS: '100',
        CALLBACK_ATTEMPT_TIMEOUT_MS: '2000',
        CALLBACK_LEASE_MS: '4000',
        CALLBACK_RETRY_SCHEDULE: '0s,1s,1s,1s,1s,1s',
        CALLBACK_PROFILE_CACHE_TTL_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const remember = (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout?.on('data', remember);
    child.stderr?.on('data', remember);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    this.child = { process: child, exited, output };
    this.url = `http://127.0.0.1:${listenPort}`;
    let exitCode: number | null | 'running' = 'running';
    void exited.then((code) => (exitCode = code));
    const healthy = async () => {
      if (exitCode !== 'running') throw new Error(`the dispatcher exited with ${exitCode}:\n${output.slice(-30).join('\n')}`);
      return fetch(`${this.url}/health`, { signal: AbortSignal.timeout(1_000) }).then(
        (response) => response.ok,
        () => false,
      );
    };
    await eventually(healthy, Boolean, 'the dispatcher healthy', 90_000).catch((error: Error) => {
      throw exitCode === 'running' ? new Error(`the dispatcher did not start:\n${output.slice(-30).join('\n')}`) : error;
    });
  }

  /** SIGKILL: no shutdown hooks, leases left behind. */
  async killProcess(): Promise<void> {
    if (!this.child) return;
    this.child.process.kill('SIGKILL');
    await this.child.exited;
    this.child = null;
  }

  async stop(): Promise<void> {
    if (this.child) {
      this.child.process.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.child.exited, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
      clearTimeout(timer);
      this.child.process.kill('SIGKILL');
    }
    await Promise.all(this.replicas.map((replica) => replica.close()));
    await this.app?.close();
    await this.publisher?.disconnect();
    await this.gateway?.stop();
  }

  async publish(envelopes: Array<MessageEnvelope<string, { merchantId: string; orderId: string }>>): Promise<void> {
    await this.publisher?.publish(
      envelopes.map((envelope) => ({ topic: PAYMENTS_TOPICS.orderEvents, key: paymentOrderKey(envelope.data.merchantId, envelope.data.orderId), envelope })),
    );
  }

  async query<T = Record<string, unknown>>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: this.databaseUrl });
    await client.connect();
    try {
      return (await client.query(sql, parameters)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }> {
    // As the gateway calls it, except what only tests call (CALLBACKS_INTERNAL_ACCESS).
    const caller = path === '/internal/test/clock' || /^\/internal\/deliveries\/[^/?]+$/.test(path) ? 'test-harness' : 'gateway';
    const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(await TEST_SERVICE_KEYS.headers('callbacks', caller)) };
    const response = await fetch(`${this.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  async advanceClock(seconds: number): Promise<void> {
    const moved = await this.request('POST', '/internal/test/clock', { advance_seconds: seconds });
    if (moved.status !== 200) throw new Error(`the test clock answered ${moved.status}`);
  }
}

export const newOrderId = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
