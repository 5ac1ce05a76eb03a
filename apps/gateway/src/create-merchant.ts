import 'reflect-metadata';
import { SecretBox } from '@mp/access-domain';
import { ConsoleKeyStore, MerchantCredentialStore } from '@mp/access-infrastructure';
import { GATEWAY_MIGRATIONS } from '@mp/gateway-api';
import { ConfigError, ConfigReader, parseCommandLine } from '@mp/shared-util-config';
import { DataSource } from 'typeorm';
import { loadGatewayStorageConfig } from './gateway.config';

/**
 * Operator command: creates a merchant and prints its id and secrets, once. They are stored
 * encrypted and cannot be shown again.
 *
 *   npm run merchant:create -- --name "Demo shop" [--callback-url URL] [--console-key] [--json]
 *
 * `--console-key` also issues a console key (`mck_…`), what the merchant's staff type to sign in
 * to the console (operators issue more, and revoke them, in the back office).
 */
async function main(): Promise<void> {
  const { values: args } = parseCommandLine({
    options: {
      name: { type: 'string' },
      'callback-url': { type: 'string' },
      'console-key': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const reader = new ConfigReader(process.env);
  const storage = loadGatewayStorageConfig(reader);
  if (!args.name) reader.problem('--name is required');
  reader.assertValid();

  const dataSource = new DataSource({ type: 'postgres', url: storage.databaseUrl, migrations: GATEWAY_MIGRATIONS, migrationsTransactionMode: 'each' });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations();
    const store = new MerchantCredentialStore(dataSource, new SecretBox(storage.secretsKeyring), 0);
    const merchant = await store.createMerchant(args.name ?? '', args['callback-url'] ?? null);
    const consoleKey = args['console-key'] ? await new ConsoleKeyStore(dataSource).create(merchant.merchantId, { createdBy: 'merchant:create' }) : null;
    if (args.json) {
      console.log(
        JSON.stringify({
          merchant_id: merchant.merchantId,
          name: merchant.name,
          api_secret: merchant.apiSecret,
          webhook_secret: merchant.webhookSecret,
          ...(consoleKey ? { console_key: consoleKey.console_key, console_key_id: consoleKey.key_id } : {}),
        }),
      );
    } else {
      console.log(`Merchant created: ${merchant.name}`);
      console.log(`  merchant_id (x-api-key): ${merchant.merchantId}`);
      console.log(`  API secret:              ${merchant.apiSecret}`);
      console.log(`  webhook secret:          ${merchant.webhookSecret}`);
      if (consoleKey) console.log(`  console key:             ${consoleKey.console_key} (until ${consoleKey.expires_at})`);
      console.log('Store the secrets now: they are kept encrypted and are never shown again.');
    }
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
