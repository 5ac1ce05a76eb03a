/**
 * Benchmark (prints figures, asserts nothing): does a ledger command cost more as a merchant's
 * history grows, and does the ledger keep up with pay-ins as they succeed?
 *
 *   KAFKA_BROKERS=... TEST_PG_ADMIN_URL=... node tools/run-built.mjs bench/src/ledger-cost.bench.ts
 *
 * The ledger service runs in this process exactly as apps/ledger wires it (LedgerTestService),
 * on loopback, with a private database and Kafka namespace. One merchant is credited through
 * the real path (PaymentOrderSucceeded events on payments.order.events, consumed by the
 * ledger), in two waves: 4,000 credits, then 8,000 more. While each wave is consumed, the lag
 * (events produced − events applied) is sampled every second. At 0, 4,000 and 12,000 credits,
 * 50 payout holds are placed one after the other through the HTTP holds API and timed.
 */
import { performance } from 'node:perf_hooks';
import { LedgerTestService, newMerchantId, paymentOrderEvent } from '@mp/ledger-testing';

const HOLDS_PER_CHECKPOINT = 50;
const PUBLISH_CHUNK = 500;

async function main(): Promise<void> {
  const ledger = await LedgerTestService.start();
  const merchantId = newMerchantId('bench');
  let credited = 0;
  let holds = 0;
  try {
    // Warm-up on another merchant (JIT, connection pool), so the first checkpoint is not the cold start.
    const warmUp = newMerchantId('warmup');
    await creditWave(ledger, warmUp, 0, 1, 'warm-up');
    await timeHolds(ledger, warmUp, 0, () => `W-${(holds += 1)}`);
    // A first credit so the holds at "0" succeed (and are decided, not refused at the door).
    await creditWave(ledger, merchantId, 0, 1, 'seed');
    credited = 1;
    const results = [await timeHolds(ledger, merchantId, 0, () => `H-${(holds += 1)}`)];
    await creditWave(ledger, merchantId, credited, 4_000, 'wave 1: 0 → 4,000 credits');
    credited += 4_000;
    results.push(await timeHolds(ledger, merchantId, 4_000, () => `H-${(holds += 1)}`));
    await creditWave(ledger, merchantId, credited, 8_000, 'wave 2: 4,000 → 12,000 credits');
    credited += 8_000;
    results.push(await timeHolds(ledger, merchantId, 12_000, () => `H-${(holds += 1)}`));
    console.log('\npayout hold, POST /internal/holds, sequential, loopback:');
    for (const result of results)
      console.log(
        `  at ${String(result.credits).padStart(6)} credits: p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms, max ${result.max.toFixed(1)} ms (n=${HOLDS_PER_CHECKPOINT})`,
      );
    const [{ version }] = await ledger.query<{ version: number }>(`SELECT stream_version AS version FROM ledger_balances WHERE merchant_id = $1`, [merchantId]);
    console.log(`stream length at the end: ${version} events`);
  } finally {
    await ledger.stop();
  }
}

/** Publishes `count` succeeded pay-ins and samples how far behind the ledger is until all are applied. */
async function creditWave(ledger: LedgerTestService, merchantId: string, firstIndex: number, count: number, label: string): Promise<void> {
  const started = performance.now();
  const samples: Array<{ second: number; produced: number; applied: number }> = [];
  let produced = 0;
  const applied = async () => {
    const [{ n }] = await ledger.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_credited_orders WHERE merchant_id = $1`, [merchantId]);
    return n - firstIndex;
  };
  const sampler = setInterval(() => {
    void applied().then((n) => samples.push({ second: Math.round((performance.now() - started) / 1000), produced, applied: n }));
  }, 1_000);
  try {
    for (let chunk = 0; chunk < count; chunk += PUBLISH_CHUNK) {
      const size = Math.min(PUBLISH_CHUNK, count - chunk);
      const envelopes = Array.from({ length: size }, (_, offset) =>
        paymentOrderEvent('PaymentOrderSucceeded', {
          merchantId,
          orderId: `A-${firstIndex + chunk + offset}`,
          direction: 'incoming',
          amountMinor: '100000',
          feeMinor: '2500',
          currency: 'RUB',
        }),
      );
      await ledger.publish(envelopes);
      produced += size;
    }
    const publishedAfter = (performance.now() - started) / 1000;
    while ((await applied()) < count) await new Promise((resolve) => setTimeout(resolve, 200));
    const seconds = (performance.now() - started) / 1000;
    const maxLag = samples.reduce((max, sample) => Math.max(max, sample.produced - sample.applied), 0);
    console.log(
      `${label}: ${count} events produced in ${publishedAfter.toFixed(1)} s, all applied after ${seconds.toFixed(1)} s (${(count / seconds).toFixed(0)} events/s); largest lag ${maxLag} events`,
    );
    if (samples.length > 0) {
      const shown = samples.filter((_, index) => index % Math.max(1, Math.ceil(samples.length / 8)) === 0 || index === samples.length - 1);
      console.log(`  lag samples (s: applied/produced): ${shown.map((sample) => `${sample.second}: ${sample.applied}/${sample.produced}`).join(', ')}`);
    }
  } finally {
    clearInterval(sampler);
  }
}

async function timeHolds(
  ledger: LedgerTestService,
  merchantId: string,
  credits: number,
  nextOrderId: () => string,
): Promise<{ credits: number; p50: number; p95: number; max: number }> {
  const durations: number[] = [];
  for (let index = 0; index < HOLDS_PER_CHECKPOINT; index += 1) {
    const orderId = nextOrderId();
    const started = performance.now();
    const response = await ledger.placeHold(merchantId, `payout:${merchantId}:${orderId}`, '100', '1');
    durations.push(performance.now() - started);
    if (response.status !== 201) throw new Error(`hold ${orderId} answered ${response.status}: ${response.text}`);
  }
  durations.sort((a, b) => a - b);
  const at = (quantile: number) => durations[Math.min(durations.length - 1, Math.floor(quantile * durations.length))];
  return { credits, p50: at(0.5), p95: at(0.95), max: durations[durations.length - 1] };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
