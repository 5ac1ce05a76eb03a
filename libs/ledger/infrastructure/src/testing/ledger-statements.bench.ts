/**
 * Benchmark (prints figures, asserts nothing): how many SQL statements and transactions the
 * ledger's event intake spends per applied pay-in credit, one event at a time (each waits for
 * the previous one: what every event cost before batches) and in bulk (the consumer takes them
 * in batches of up to 50 of one partition).
 *
 *   KAFKA_BROKERS=... TEST_PG_ADMIN_URL=... node tools/run-built.mjs libs/ledger/infrastructure/src/testing/ledger-statements.bench.ts
 *
 * The ledger runs in this process as apps/ledger wires it (LedgerTestService); every statement
 * its DataSource sends is counted through its TypeORM logger, so HTTP reads and the test's own
 * SQL (on a separate client) are not.
 */
import { LedgerTestService, newMerchantId, paymentOrderEvent } from './ledger-test-service';

const EVENTS = 200;
const MERCHANTS = 10;

async function main(): Promise<void> {
  const ledger = await LedgerTestService.start();
  const counted = { statements: 0, transactions: 0 };
  const logger = ledger.dataSource.logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, queryRunner) => {
    counted.statements += 1;
    if (query === 'START TRANSACTION') counted.transactions += 1;
    return logQuery(query, parameters, queryRunner);
  };
  try {
    const merchants = Array.from({ length: MERCHANTS }, (_, index) => newMerchantId(`stmt${index}`));
    const credit = (wave: string, index: number) =>
      paymentOrderEvent('PaymentOrderSucceeded', { merchantId: merchants[index % MERCHANTS], orderId: `${wave}-${index}`, direction: 'incoming', amountMinor: '100000', feeMinor: '2500', currency: 'RUB' });
    const applied = async (wave: string) => {
      const [{ n }] = await ledger.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_credited_orders WHERE order_id LIKE $1`, [`${wave}-%`]);
      return n;
    };
    const measure = async (label: string, wave: string, publish: () => Promise<void>) => {
      const before = { ...counted };
      await publish();
      while ((await applied(wave)) < EVENTS) await new Promise((resolve) => setTimeout(resolve, 100));
      const statements = (counted.statements - before.statements) / EVENTS;
      const transactions = (counted.transactions - before.transactions) / EVENTS;
      console.log(`${label}: ${statements.toFixed(2)} statements and ${transactions.toFixed(2)} transactions per credited pay-in (${EVENTS} events, ${MERCHANTS} merchants)`);
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
