import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildMerchantApiDocument, MERCHANT_API_DOCUMENT_FILE, serializeMerchantApiDocument } from '@mp/gateway-api';

/**
 * `npm run openapi`: writes the /v2 OpenAPI description to openapi.json at the repository root,
 * from the controllers' decorators, with no Kafka or PostgreSQL. Run after changing the merchant
 * API; the drift test (libs/gateway/api/src/openapi/merchant-api.document.spec.ts) fails until you do.
 */
async function main(): Promise<void> {
  // Built to dist/apps/gateway/src/write-openapi.js; the repository root is four levels up.
  const target = join(__dirname, '..', '..', '..', '..', MERCHANT_API_DOCUMENT_FILE);
  writeFileSync(target, serializeMerchantApiDocument(await buildMerchantApiDocument()));
  process.stdout.write(`wrote ${target}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
