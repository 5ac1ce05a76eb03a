// Steps 4 to 6 of the compose smoke test: gateway restarts, replicas killed before a load, nothing lost, Kafka ACLs and internal TLS.
import { readFileSync } from 'node:fs';
import { LOAD_RATE, LOAD_SECONDS, SmokeFailure, check, run, say, sleep } from './common.mjs';
import { waitHealthy } from './stack.mjs';
import { availableMinor, merchantClient, toMinor } from './merchant.mjs';
import { payAndConfirm, waitFor, waitForStatus } from './walk-through.mjs';

/**
 * The gateway's reply topics and their dead-letter topics on the broker, listed by the payments
 * container's own principal (every principal may describe every topic) with the kafkajs its image
 * ships: a second, where the broker image's kafka-topics.sh takes minutes to start its JVM on a
 * loaded machine.
 */
export async function gatewayReplyTopics(stack) {
  const [payments] = await stack.containers('payments');
  const script = `
    const { readFileSync } = require('node:fs');
    const { Kafka, logLevel } = require('kafkajs');
    const admin = new Kafka({ clientId: 'smoke-topics', brokers: [process.env.KAFKA_BROKERS], logLevel: logLevel.NOTHING,
      ssl: { ca: [readFileSync(process.env.KAFKA_SSL_CA_FILE, 'utf8')] }, sasl: { mechanism: 'scram-sha-512', username: process.env.KAFKA_SASL_USERNAME, password: process.env.KAFKA_SASL_PASSWORD } }).admin();
    admin.connect().then(() => admin.listTopics()).then((topics) => console.log('TOPICS ' + JSON.stringify(topics)), (error) => { console.error(error.message); process.exitCode = 1; }).finally(() => admin.disconnect());`;
  const listed = await run('docker', ['exec', payments, 'node', '-e', script], { quiet: true });
  // Marked: kafkajs's warnings on stderr may come after it in the output.
  const line = listed.output.split('\n').find((entry) => entry.startsWith('TOPICS '));
  check(line !== undefined, `could not list the topics:\n${listed.output}`);
  return JSON.parse(line.slice('TOPICS '.length)).filter((topic) => topic.startsWith('gateway.replies.'));
}

/**
 * Restarts the gateway three times, twice with SIGTERM (compose restart: the replica deletes its
 * own reply topic) and once with SIGKILL (no shutdown hook: the restarted replica's sweep deletes
 * the orphan after GATEWAY_REPLY_TOPIC_GRACE_SECONDS), and answers the count of reply topics after
 * each. Every start has a new instance id, so without the cleanup each would leave a pair behind.
 */
export async function restartGatewayCountingTopics({ stack, baseUrl, demo }) {
  const counts = [(await gatewayReplyTopics(stack)).length];
  check(counts[0] === 2, `before the restarts: ${counts[0]} gateway reply topics, expected one and its dead-letter topic`);
  const healthyGateway = () => waitHealthy(stack, ['gateway'], [], 120_000);
  for (const stop of ['SIGTERM', 'SIGTERM', 'SIGKILL']) {
    const [gateway] = await stack.containers('gateway');
    const before = await gatewayReplyTopics(stack);
    if (stop === 'SIGTERM') await stack.run(['restart', '-t', '30', 'gateway'], { quiet: true });
    else {
      await run('docker', ['kill', gateway], { quiet: true });
      // `docker kill` is an operator's stop, which the restart policy respects: started again by hand.
      await run('docker', ['start', gateway], { quiet: true });
    }
    await healthyGateway();
    // Settled once the old pair is gone and the new replica's pair exists: at once after a clean stop, after the grace after a crash.
    await waitFor(
      async () => {
        const now = await gatewayReplyTopics(stack);
        return now.length === 2 && !now.some((topic) => before.includes(topic));
      },
      `the gateway's reply topics to settle at one pair after a ${stop} restart`,
      120_000,
    ).catch(async (error) => {
      throw new SmokeFailure(`${error.message}: ${(await gatewayReplyTopics(stack)).join(', ')}`);
    });
    counts.push((await gatewayReplyTopics(stack)).length);
  }
  // The restarted gateway still gets its replies.
  const orderId = `smoke-restarted-${Date.now().toString(36)}`;
  const created = await merchantClient(baseUrl, demo)('POST', '/v2/payments/incoming', {
    order_id: orderId,
    amount: 100,
    currency: 'RUB',
    country: 'RU',
    callback_url: 'https://shop.example/callbacks',
  });
  check(created.status === 201, `a pay-in through the restarted gateway: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  return counts;
}

/**
 * One replica of payments and one of ledger killed (`docker kill`), then steady pay-ins with
 * confirms: the first ones wait for the survivors to take over the killed replicas' partitions
 * (the takeover figures). The kills come before the load, not during it: a replica killed under
 * load is the chaos run's proof (docs/testing.md), here it is the compose deployment that takes over.
 */
export async function killThenLoad({ stack, baseUrl, demo, sinkUrl }) {
  const request = merchantClient(baseUrl, demo);
  const balancesBefore = (await request('GET', '/v2/merchant/balances')).body;
  const outcomes = [];
  const kills = [];
  const startedAt = Date.now();
  for (const service of ['payments', 'ledger']) {
    const [container] = await stack.containers(service);
    await run('docker', ['kill', container], { quiet: true });
    kills.push({ service, container, killedAtMs: Date.now() - startedAt });
    say(`killed ${service} replica ${container.slice(0, 12)} (SIGKILL) at ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  }
  const inFlight = [];
  for (let index = 0; Date.now() - startedAt < LOAD_SECONDS * 1000; index += 1) {
    const orderId = `smoke-load-${startedAt.toString(36)}-${index}`;
    const sentAtMs = Date.now() - startedAt;
    inFlight.push(
      (async () => {
        const created = await request('POST', '/v2/payments/incoming', {
          order_id: orderId,
          amount: 100 + (index % 50),
          currency: 'RUB',
          country: 'RU',
          callback_url: sinkUrl,
        });
        const outcome = { orderId, sentAtMs, status: created.status, ms: created.ms };
        outcomes.push(outcome);
        if (created.status === 201) {
          await payAndConfirm(baseUrl, demo, orderId, created.body.redirect_url);
          outcome.confirmed = true;
        }
      })(),
    );
    await sleep(Math.max(0, startedAt + ((index + 1) * 1000) / LOAD_RATE - Date.now()));
  }
  await Promise.all(inFlight);
  return { outcomes, kills, balancesBefore };
}

export async function verifyNothingLost({ stack, baseUrl, demo, sink, load }) {
  const request = merchantClient(baseUrl, demo);
  // A create that timed out may still have made its order: a status read settles it.
  for (const outcome of load.outcomes.filter(({ status }) => status !== 201)) {
    const read = await request('GET', `/v2/payments/status/${outcome.orderId}`);
    outcome.settled = read.status === 200 ? 'exists' : read.status === 404 ? 'absent' : `HTTP ${read.status}`;
    check(outcome.settled !== 'exists' || outcome.status === 0 || outcome.status >= 500, `${outcome.orderId} was refused with ${outcome.status} yet exists`);
    if (outcome.settled === 'exists') {
      check(read.body.redirect_url, `${outcome.orderId}: its status has no redirect_url`);
      await payAndConfirm(baseUrl, demo, outcome.orderId, read.body.redirect_url);
      outcome.confirmed = true;
    }
  }
  const confirmed = load.outcomes.filter((outcome) => outcome.confirmed);
  let expected = 0n;
  for (const outcome of confirmed) {
    const order = await waitForStatus(request, outcome.orderId, 'SUCCEEDED');
    expected += toMinor(order.amount) - toMinor(order.fee);
  }
  let moved = 0n;
  await waitFor(
    async () => {
      moved = availableMinor((await request('GET', '/v2/merchant/balances')).body, 'RUB') - availableMinor(load.balancesBefore, 'RUB');
      return moved === expected;
    },
    'the balance to move by the completed pay-ins',
    120_000,
  ).catch(() => {
    throw new SmokeFailure(
      `the balance moved by ${moved} minor units; the ${confirmed.length} completed pay-ins add up to ${expected}: money was ${moved > expected ? 'created' : 'lost'}`,
    );
  });
  const completedCallback = (orderId) => sink.verified.some(({ body }) => body?.data?.order_id === orderId && JSON.stringify(body).includes('SUCCEEDED'));
  await waitFor(() => confirmed.every(({ orderId }) => completedCallback(orderId)), 'a verified SUCCEEDED callback for every completed pay-in', 120_000);
  // The money audit over every service's database (docs/operations/audit.md), from the ops image
  // that already holds all six database URLs (the init service), after the replicas were killed.
  const audit = await stack.run(['run', '--rm', '--no-deps', '-T', 'init', 'node', 'dist/apps/ops/src/audit.js'], { quiet: true, allowFailure: true });
  check(audit.code === 0, `the money audit (npm run audit) exited with ${audit.code}:\n${audit.output}`);
  return { confirmed: confirmed.length, expected, audit: audit.output.trim().split('\n').pop() };
}

/**
 * What a compromised pod would try, from inside the payments container with the Kafka client
 * its image ships (kafkajs) and the CA it mounts: a RequestWithdrawal on withdrawals.commands as
 * the payments principal (ACLs allow only the gateway's), and a connection with a wrong password.
 * The walk-through before this is the positive side: the gateway's principal wrote the commands
 * it made. (Kafka 4's console producer reports neither refusal: its idempotent producer drops
 * the record with an INFO line, so it cannot be the probe.)
 */
export async function forgedProduces({ stack, secrets }) {
  const [payments] = await stack.containers('payments');
  const produceAs = async (user, password) => {
    const script = `
      const { readFileSync } = require('node:fs');
      const { Kafka, logLevel } = require('kafkajs');
      const kafka = new Kafka({ clientId: 'smoke-forger', brokers: [process.env.KAFKA_BROKERS], logLevel: logLevel.NOTHING, retry: { retries: 1 },
        ssl: { ca: [readFileSync(process.env.KAFKA_SSL_CA_FILE, 'utf8')] }, sasl: { mechanism: 'scram-sha-512', username: process.env.MP_USER, password: process.env.MP_PASSWORD } });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      producer.connect()
        .then(() => producer.send({ topic: 'withdrawals.commands', acks: -1, messages: [{ key: 'forged', value: JSON.stringify({ type: 'RequestWithdrawal', data: { merchantId: 'any', amountMinor: '100000000' } }) }] }))
        .then(() => console.log('WRITTEN'), (error) => console.log(error.name + ' ' + (error.type ?? '') + ' ' + error.message))
        .finally(() => producer.disconnect().catch(() => {}));`;
    return (
      await run('docker', ['exec', '-e', `MP_USER=${user}`, '-e', `MP_PASSWORD=${password}`, payments, 'node', '-e', script], {
        quiet: true,
        allowFailure: true,
      })
    ).output;
  };
  const asPayments = await produceAs('payments', secrets.PAYMENTS_KAFKA_PASSWORD);
  check(
    /TOPIC_AUTHORIZATION_FAILED/.test(asPayments) && !/WRITTEN/.test(asPayments),
    `the payments principal wrote withdrawals.commands, or failed otherwise:\n${asPayments.slice(-1500)}`,
  );
  const wrongPassword = await produceAs('gateway', 'not-the-password');
  check(
    /SASL.*authentication failed/i.test(wrongPassword) && !/WRITTEN/.test(wrongPassword),
    `a wrong password was not refused as such:\n${wrongPassword.slice(-1500)}`,
  );
}

/**
 * Internal HTTP is HTTPS (docs/operations/internal-tls.md): from the payments container, every
 * other service's internal listener, and the gateway's, answers over TLS with a certificate the
 * platform CA vouches for (NODE_EXTRA_CA_CERTS), and gives nothing to clear HTTP. The walk-through
 * before this is the working side: its calls crossed these listeners.
 */
export async function internalTlsOnly({ stack }) {
  const [payments] = await stack.containers('payments');
  const script = `
    // Liveness, not readiness: this is about the listener, not whether Kafka answers at this moment.
    const listeners = ['ledger:3002/health/live', 'withdrawals:3003/health/live', 'disputes:3004/health/live', 'callbacks:3005/health/live', 'gateway:3010/health'];
    const outcome = (url) => fetch(url, { signal: AbortSignal.timeout(5000) }).then((response) => String(response.status), (error) => 'refused ' + (error.cause?.code ?? error.message));
    Promise.all(listeners.map(async (listener) => listener + ' https=' + (await outcome('https://' + listener)) + ' http=' + (await outcome('http://' + listener))))
      .then((lines) => console.log(lines.join('\\n')));`;
  const output = (await run('docker', ['exec', payments, 'node', '-e', script], { quiet: true, allowFailure: true })).output;
  const lines = output
    .trim()
    .split('\n')
    .filter((line) => line.includes(' https='));
  check(
    lines.length === 5 && lines.every((line) => line.includes('https=200') && line.includes('http=refused')),
    `an internal listener is not HTTPS-only:\n${output.slice(-1500)}`,
  );
}

export function takeoverFigures(load) {
  const lines = [];
  for (const kill of load.kills) {
    const window = load.outcomes.filter(({ sentAtMs }) => sentAtMs >= kill.killedAtMs && sentAtMs < kill.killedAtMs + 15_000);
    const slowest = Math.max(0, ...window.map(({ ms }) => ms));
    const failed = window.filter(({ status }) => status !== 201).map(({ status, settled }) => `HTTP ${status || 'none'}, then ${settled}`);
    lines.push(
      `${kill.service} replica killed at ${(kill.killedAtMs / 1000).toFixed(1)} s: ${window.length} pay-ins sent in the next 15 s, ${failed.length} not acknowledged${failed.length ? ` (${failed.join('; ')})` : ''}, slowest answer ${(slowest / 1000).toFixed(1)} s`,
    );
  }
  const latencies = load.outcomes.map(({ ms }) => ms).sort((a, b) => a - b);
  const percentile = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  const unacknowledged = load.outcomes
    .filter(({ status }) => status !== 201)
    .map(({ orderId, status, settled }) => `${orderId}: HTTP ${status || 'none'}, then ${settled}`);
  lines.push(
    `all ${load.outcomes.length} pay-ins: ${load.outcomes.length - unacknowledged.length} acknowledged${unacknowledged.length ? ` (not: ${unacknowledged.join('; ')})` : ''}; create latency p50 ${percentile(50)} ms, p99 ${percentile(99)} ms, max ${percentile(100)} ms`,
  );
  return lines;
}
