import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AGENT_API_DOCUMENT_FILE,
  BACKOFFICE_API_DOCUMENT_FILE,
  buildAgentApiDocument,
  buildBackofficeApiDocument,
  buildMerchantApiDocument,
  MERCHANT_API_DOCUMENT_FILE,
  serializeApiDocument,
} from '@mp/gateway-api';

/**
 * `npm run openapi`: writes the OpenAPI descriptions from the controllers' decorators, with no
 * Kafka or PostgreSQL: the /v2 merchant API to openapi.json at the repository root, the agent and
 * back-office APIs to docs/api/. Run after changing one of them; the drift tests
 * (libs/gateway/api/src/openapi/*.document.spec.ts) fail until you do.
 */
async function main(): Promise<void> {
  // Built to dist/apps/gateway/src/write-openapi.js; the repository root is four levels up.
  const root = join(__dirname, '..', '..', '..', '..');
  const documents = [
    [MERCHANT_API_DOCUMENT_FILE, buildMerchantApiDocument],
    [AGENT_API_DOCUMENT_FILE, buildAgentApiDocument],
    [BACKOFFICE_API_DOCUMENT_FILE, buildBackofficeApiDocument],
  ] as const;
  for (const [file, build] of documents) {
    writeFileSync(join(root, file), serializeApiDocument(await build()));
    process.stdout.write(`wrote ${join(root, file)}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
