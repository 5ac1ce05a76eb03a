/**
 * Benchmark (prints figures, asserts nothing): how many SQL statements and transactions the
 * ledger's event intake spends per applied pay-in credit, one event at a time (each waits for
 * the previous one: what every event cost before batches) and in bulk (the consumer takes them
 * in batches of up to 50 of one partition).
 *
 *   KAFKA_BROKERS=... TEST_PG_ADMIN_URL=... node tools/run-built.mjs bench/src/ledger-statements.bench.ts
 *
 * The ledger runs in this process as apps/ledger wires it (LedgerTestService); every statement
 * its DataSource sends is counted (recordStatements), so HTTP reads and the test's own
 * SQL (on a separate client) are not.
 */
import { recordStatements } from '@mp/shared-data-access-postgres';
import { LedgerTestService, newMerchantId, paymentOrderEvent } from '@mp/ledger-testing';

const EVENTS = 200;
const MERCHANTS = 10;

async function main(): Promise<void> {
  const ledger = await LedgerTestService.start();
  const statements = recordStatements(ledger.dataSource);
  const counted = () => ({ statements: statements.length, transactions: statements.filter((statement) => statement === 'START TRANSACTION').length });
  try {
    const merchants = Array.from({ length: MERCHANTS }, (_, index) => newMerchantId(`stmt${index}`));
    const credit = (wave: string, index: number) =>
      paymentOrderEvent('PaymentOrderSucceeded', {
        merchantId: merchants[index % MERCHANTS],
        orderId: `${wave}-${index}`,
        direction: 'incoming',
        amountMinor: '100000',
        feeMinor: '2500',
        currency: 'RUB',
      });
    const applied = async (wave: string) => {
      const [{ n }] = await ledger.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_credited_orders WHERE order_id LIKE $1`, [`${wave}-%`]);
      return n;
    };
    const measure = async (label: string, wave: string, publish: () => Promise<void>) => {
      const before = counted();
      await publish();
      while ((await applied(wave)) < EVENTS) await new Promise((resolve) => setTimeout(resolve, 100));
      const after = counted();
      const perEvent = (field: 'statements' | 'transactions') => ((after[field] - before[field]) / EVENTS).toFixed(2);
      console.log(
        `${label}: ${perEvent('statements')} statements and ${perEvent('transactions')} transactions per credited pay-in (${EVENTS} events, ${MERCHANTS} merchants)`,
      );
    };
    await measure('one at a time', 'single', async () => {
      for (let index = 0; index < EVENTS; index += 1) {
        await ledger.publish([credit('single', index)]);
        while ((await applied('single')) < index + 1) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    await measure('in bulk (batches)', 'bulk', () => ledger.publish(Array.from({ length: EVENTS }, (_, index) => credit('bulk', index))));
  } finally {
    await ledger.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
