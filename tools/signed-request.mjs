#!/usr/bin/env node
/**
 * Sends one signed request to the /v2 API, signed by the merchant SDK's signer
 * (libs/sdk/src/signing.ts, built first; docs/api/authentication.md describes the rule).
 *
 *   node tools/signed-request.mjs POST /v2/payments/incoming '{"order_id":"A-1","amount":1500.50,...}'
 *   node tools/signed-request.mjs GET /v2/payments/status/A-1
 *
 * Credentials: MP_MERCHANT_ID and MP_API_SECRET, else the demo merchant that `npm start`
 * saved in .local/dev/demo-merchant.json. MP_BASE_URL defaults to http://127.0.0.1:3000.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importBuilt } from './build-workspace.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [method, path, body = ''] = process.argv.slice(2);
if (!method || !path) {
  console.error('usage: node tools/signed-request.mjs METHOD PATH [JSON_BODY]');
  process.exit(2);
}

const demoFile = join(root, '.local/dev/demo-merchant.json');
const demo = existsSync(demoFile) ? JSON.parse(readFileSync(demoFile, 'utf8')) : {};
const merchantId = process.env.MP_MERCHANT_ID ?? demo.merchant_id;
const secret = process.env.MP_API_SECRET ?? demo.api_secret;
const baseUrl = process.env.MP_BASE_URL ?? demo.base_url ?? 'http://127.0.0.1:3000';
if (!merchantId || !secret) {
  console.error('No credentials: set MP_MERCHANT_ID and MP_API_SECRET, or run `npm start` to create the demo merchant.');
  process.exit(2);
}

const { signatureHeaders } = await importBuilt('libs/sdk/src/signing.ts');
const response = await fetch(`${baseUrl}${path}`, {
  method,
  headers: {
    accept: 'application/json',
    ...signatureHeaders(merchantId, secret, path, body),
    ...(body ? { 'content-type': 'application/json' } : {}),
  },
  body: body || undefined,
});
const text = await response.text();
console.log(`HTTP ${response.status}`);
try {
  console.log(JSON.stringify(JSON.parse(text), null, 2));
} catch {
  console.log(text);
}
process.exit(response.ok ? 0 : 1);
