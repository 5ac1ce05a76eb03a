/**
 * Goal: every service serves Prometheus metrics (docs/operations/metrics.md): process defaults
 * and event-loop lag everywhere, HTTP latency by route pattern, consumer lag, dead letters, the
 * outbox backlog, callback attempts, ledger postings and holds, withdrawals in progress; with
 * sane values after real traffic, and no merchant or order id in any label. The gateway serves
 * them on its internal listener only, never on its public port.
 * Method: real gateway, payments, ledger, withdrawals, disputes and callback dispatcher
 * processes on real Kafka and PostgreSQL; a pay-in, a payout, a withdrawal and their callbacks
 * to a receiver on 127.0.0.1, then a scrape of each service's /metrics.
 */
import { CallbackReceiver, createOperator, registerAgent, SignedClient, SystemUnderTest, type InstanceName } from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';
import { alertExpressions, dashboardExpressions, metricNamesIn } from './observability-references';
import { balance, CONVERSION_FEE_BASIS_POINTS, confirmedPayIn, ERC20_ADDRESS, fundWith1000Usdt } from './usdt-funding';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format's sample lines (the exposition prom-client writes: no timestamps). */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1], type[2]);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) continue;
    const labels = Object.fromEntries([...(sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((match) => [match[1], match[2]]));
    samples.push({ name: sample[1], labels, value: Number(sample[3]) });
  }
  return { samples, types };
}

const SERVICE_LABEL: Record<string, string> = {
  gateway: 'gateway',
  payments: 'payments',
  ledger: 'ledger',
  disputes: 'disputes',
  withdrawals: 'withdrawals',
  callbacks: 'callback-dispatcher',
};

describe('Prometheus metrics of every service', () => {
  let system: SystemUnderTest;
  let receiver: CallbackReceiver;
  let merchant: SignedClient;
  const orderIds: string[] = [];

  const scrape = async (instance: InstanceName) => {
    const base = instance === 'gateway' ? `http://127.0.0.1:${system.gatewayInternalPort}` : system.urlOf(instance);
    const response = await fetch(`${base}/metrics`);
    expect([instance, response.status]).toEqual([instance, 200]);
    expect(response.headers.get('content-type')).toContain('text/plain');
    return parseExposition(await response.text());
  };
  const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
    samples
      .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
      .reduce((sum, sample) => sum + sample.value, 0);

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: {
        gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true', GATEWAY_COMMAND_TIMEOUT_MS: '30000' },
        ledger: { LEDGER_CONVERSION_FEE_BASIS_POINTS: String(CONVERSION_FEE_BASIS_POINTS) },
        withdrawals: { WITHDRAWALS_SIMULATOR_DELAY_MS: '300', WITHDRAWALS_SEND_INTERVAL_MS: '200' },
      },
    });
    const operator = await createOperator(system);
    const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    receiver = await CallbackReceiver.start({ secrets: [] });
    const created = await operator.request('POST', '/backoffice/v1/merchants', { name: 'Metrics shop', default_callback_url: receiver.url() });
    expect(created.status).toBe(201);
    receiver.secrets.push(created.body.webhook_secret as string);
    merchant = new SignedClient(system.gatewayUrl, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret });

    // A pay-in and a conversion (USDT to withdraw), then a RUB pay-in and a payout, then a withdrawal.
    await fundWith1000Usdt(operator, agent, merchant);
    const common = {
      country: 'RU',
      currency: 'RUB',
      fee_rate_basis_points: 0,
      fee_fixed_minor: '0',
      min_amount_minor: '100',
      max_amount_minor: '100000000',
      expiry_minutes: 30,
    };
    const methods = [
      { method: 'bank_card', direction: 'incoming', ...common },
      { method: 'bank_card', direction: 'outgoing', ...common },
    ];
    expect((await operator.request('PUT', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/methods`, { entries: methods })).status).toBe(200);
    orderIds.push(await confirmedPayIn(agent, merchant, { amount: 1000, callback_url: receiver.url() }));
    await eventually(
      () => balance(merchant, 'RUB'),
      (rub) => rub.available === 1000,
      'the pay-in credit',
    );
    const payoutId = newOrderId('payout');
    orderIds.push(payoutId);
    expect(
      (
        await merchant.post('/v2/payments/outgoing', {
          ...incomingPayment(payoutId, { amount: 200, callback_url: receiver.url() }),
          method: 'bank_card',
          account_number: '4111 1111 1111 1111',
        })
      ).status,
    ).toBe(201);
    const withdrawalId = newOrderId('withdrawal');
    orderIds.push(withdrawalId);
    expect(
      (await merchant.post('/v2/merchant/withdrawals', { order_id: withdrawalId, amount: 100, currency: 'USDT-ERC20', address: ERC20_ADDRESS })).status,
    ).toBe(201);
    expect((await merchant.get(`/v2/merchant/withdrawals/${withdrawalId}`)).status).toBe(200);
    await eventually(
      () => receiver.bodies(),
      (bodies) => bodies.some((body) => body.type === 'withdrawal.completed') && bodies.some((body) => body.type.startsWith('payment.')),
      'the withdrawal and payment callbacks',
      60_000,
    );
  });

  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  it('serves process defaults and event-loop lag on every service, labelled with the service, and no merchant or order id in any label', async () => {
    for (const instance of Object.keys(SERVICE_LABEL) as InstanceName[]) {
      const { samples, types } = await scrape(instance);
      expect([
        instance,
        types.get('process_cpu_user_seconds_total'),
        types.get('nodejs_eventloop_lag_seconds'),
        types.get('http_server_request_duration_seconds'),
      ]).toEqual([instance, 'counter', 'gauge', 'histogram']);
      expect(valueOf(samples, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
      expect(valueOf(samples, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(samples.every((sample) => sample.labels.service === SERVICE_LABEL[instance])).toBe(true);
      const labelValues = samples.flatMap((sample) => Object.values(sample.labels));
      expect(
        labelValues.filter(
          (value) => /mch_/.test(value) || value.includes(merchant.credentials.merchantId) || orderIds.some((orderId) => value.includes(orderId)),
        ),
      ).toEqual([]);
    }
  });

  it('times HTTP requests by route pattern and status, and the gateway serves metrics only on its internal listener', async () => {
    const { samples } = await scrape('gateway');
    expect(valueOf(samples, 'http_server_request_duration_seconds_count', { method: 'POST', route: '/v2/merchant/withdrawals', status_code: '201' })).toBe(1);
    expect(valueOf(samples, 'http_server_request_duration_seconds_count', { method: 'POST', route: '/v2/payments/outgoing', status_code: '201' })).toBe(1);
    const withdrawalReads = samples.filter(
      (sample) =>
        sample.name === 'http_server_request_duration_seconds_count' &&
        sample.labels.method === 'GET' &&
        sample.labels.route.startsWith('/v2/merchant/withdrawals/'),
    );
    expect(withdrawalReads.map((sample) => sample.labels.route)).toEqual([expect.stringMatching(/^\/v2\/merchant\/withdrawals\/:\w+$/)]);
    expect(valueOf(samples, 'http_server_request_duration_seconds_bucket', { route: '/v2/merchant/withdrawals', le: '+Inf' })).toBe(1);

    expect((await fetch(`${system.gatewayUrl}/metrics`)).status).toBe(404);
    const internal = (await scrape('payments')).samples;
    expect(valueOf(internal, 'http_server_request_duration_seconds_count')).toBeGreaterThan(0);
  });

  it('reports consumer lag per group and partition, dead letters and the outbox backlog of each service that publishes', async () => {
    for (const instance of ['payments', 'ledger', 'withdrawals', 'disputes', 'callbacks'] as InstanceName[]) {
      const { samples, types } = await scrape(instance);
      expect([instance, types.get('messaging_dead_letters_total')]).toEqual([instance, 'counter']);
      const lag = samples.filter((sample) => sample.name === 'messaging_consumer_lag_messages');
      expect([instance, lag.length > 0]).toEqual([instance, true]);
      for (const sample of lag) {
        expect(sample.labels).toEqual({
          service: SERVICE_LABEL[instance],
          group: expect.any(String),
          topic: expect.any(String),
          partition: expect.stringMatching(/^\d+$/),
        });
        expect(sample.value).toBeGreaterThanOrEqual(0);
      }
      if (instance === 'callbacks') continue;
      // The ledger publishes nothing: it has no outbox, so no backlog to report.
      if (instance === 'ledger') {
        expect([instance, types.has('outbox_unpublished_messages')]).toEqual([instance, false]);
        continue;
      }
      // The relay publishes right after each commit: the backlog drains to nothing.
      const drained = await eventually(
        async () => (await scrape(instance)).samples,
        (now) => valueOf(now, 'outbox_unpublished_messages') === 0,
        `${instance}'s outbox drained`,
      );
      expect(drained.some((sample) => sample.name === 'outbox_oldest_unpublished_age_seconds' && sample.value === 0)).toBe(true);
    }
  });

  it('counts callback attempts by outcome and disabled endpoints, ledger postings and open holds, and withdrawals in progress', async () => {
    const callbacks = (await scrape('callbacks')).samples;
    expect(valueOf(callbacks, 'callback_attempts_total', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(receiver.received.length);
    expect(valueOf(callbacks, 'callback_attempts_total', { outcome: 'gone' })).toBe(0);
    expect(valueOf(callbacks, 'callback_endpoints_disabled')).toBe(0);
    expect(callbacks.some((sample) => sample.name === 'callback_deliveries_pending')).toBe(true);

    const ledger = (await scrape('ledger')).samples;
    // Pay-in settlements, the conversion, the payout's and the withdrawal's holds: well over ten postings.
    expect(valueOf(ledger, 'ledger_postings_total')).toBeGreaterThan(5);
    expect(valueOf(ledger, 'ledger_postings_total', { code: 'CONVERSION_IN' })).toBe(1);
    // The payout waits for an agent: its hold is open.
    expect(valueOf(ledger, 'ledger_holds_open', { currency: 'RUB' })).toBe(1);

    const withdrawals = await scrape('withdrawals');
    expect(withdrawals.samples.filter((sample) => sample.name === 'withdrawals_in_progress').map((sample) => [sample.labels.state, sample.value])).toEqual([
      ['queued', 0],
      ['sending', 0],
    ]);
    expect(valueOf(withdrawals.samples, 'withdrawals_in_progress_oldest_age_seconds')).toBe(0);
    expect(withdrawals.types.get('withdrawal_late_network_results_total')).toBe('counter');
  });

  it('exports every metric the alert rules and the Grafana dashboard read (deploy/observability cannot drift from the code)', async () => {
    const exported = new Map<string, string>();
    for (const instance of Object.keys(SERVICE_LABEL) as InstanceName[]) for (const [name, type] of (await scrape(instance)).types) exported.set(name, type);
    // `up` is Prometheus's own series about each scrape; a histogram is read through its suffixed series.
    const isExported = (name: string) => {
      if (name === 'up' || exported.has(name)) return true;
      const histogram = /^(.*)_(bucket|count|sum)$/.exec(name);
      return histogram !== null && ['histogram', 'summary'].includes(exported.get(histogram[1]) ?? '');
    };
    const referenced = [
      ...alertExpressions().map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
      ...dashboardExpressions().map((query) => ({ where: `panel ${query.panel}`, expr: query.expr })),
    ];
    const unknown = referenced.flatMap(({ where, expr }) =>
      metricNamesIn(expr)
        .filter((name) => !isExported(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
    expect(referenced.length).toBeGreaterThan(20);
  });
});
