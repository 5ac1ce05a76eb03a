import { DocumentBuilder, type OpenAPIObject } from '@nestjs/swagger';
import { buildApiDocument, serializeApiDocument } from './api-document';
import { CALLBACK_MODELS, CALLBACKS_BY_OPERATION } from './callback-payloads';
import { MERCHANT_API_CONTROLLERS } from './merchant-api.controllers';

/** The contract's version in `info.version`: bumped by docs/api/versioning.md's rules, logged in docs/api/CHANGELOG.md. */
export const MERCHANT_API_VERSION = '2.1.0';

const SIGNING_RULES = `Every request carries three headers: \`x-api-key\` (the merchant_id), \`x-timestamp\` (Unix seconds) and \`x-signature\`: the lower-case hex HMAC-SHA256, keyed with the API secret, of the signed string \`{x-timestamp}.{path}.{body}\` (three parts joined by single dots).

- **path** is the request path without host or query string, percent-decoded as the server sees it: an order id with a colon is signed with the colon even when sent as \`%3A\`. An encoded slash \`%2F\` stays encoded; every other percent-encoded part is decoded. Signing the encoded form is \`INVALID_SIGNATURE\`.
- **body** is the raw request body, byte for byte: sign exactly the bytes you send, never a re-serialization. An empty-object body is signed as \`{}\`.
- A request without a body signs an empty body, so the signed string ends with a dot: \`{x-timestamp}.{path}.\`
- \`x-timestamp\` must be within five minutes of the server's clock (\`TIMESTAMP_OUT_OF_RANGE\` otherwise, with \`server_time\`).
- A failed check is \`401 INVALID_SIGNATURE\`; a missing header \`401 MISSING_AUTH_HEADER\`; an unknown key \`401 INVALID_API_KEY\`.

All three schemes are required together on every operation.`;

const DESCRIPTION = `The signed JSON API merchants use to accept pay-ins, send payouts, withdraw to crypto wallets and open disputes.

## Authentication

${SIGNING_RULES}

## Money

Amounts are JSON numbers in the currency's major units, written with exactly the currency's decimal digits (\`1500.50\` RUB); the server never rounds them through a float. Send them the same way.

## Errors

Every error answer is \`{"error": {"code", "message", "details": [{"field", "issue"}]}, "request_id"}\` with the HTTP status its code always has. Branch on \`error.code\`, never on the message. Every answer carries \`x-request-id\`; 429 and 503 carry \`Retry-After\` (seconds).

## Callbacks

Outcomes are POSTed to your endpoints in the Standard Webhooks format; see each creating operation's callbacks.`;

/** The OpenAPI 3.0.4 description of /v2, from the merchant controllers' decorators (api-document.ts says how). */
export async function buildMerchantApiDocument(): Promise<OpenAPIObject> {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.0.4')
    .setTitle('Merchant payments API')
    .setDescription(DESCRIPTION)
    .setVersion(MERCHANT_API_VERSION)
    .addServer('https://api.payments.example', 'Production')
    .addServer('http://127.0.0.1:3000', 'Local development (npm start, docker compose)')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Your merchant_id.' }, 'x-api-key')
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'x-timestamp', description: 'Unix time in seconds, within five minutes of the server clock.' },
      'x-timestamp',
    )
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-signature', description: SIGNING_RULES }, 'x-signature')
    .addTag('Payments', 'Pay-ins and payouts (endpoints 1 to 7)')
    .addTag('Merchant', 'Profile, balances, methods and secrets (endpoints 8 to 10)')
    .addTag('Withdrawals', 'Withdrawals to crypto wallets (endpoints 11 to 13)')
    .addTag('Disputes', 'Disputes on pay-ins (endpoints 14 to 16)')
    .addTag('Webhooks', 'Your callbacks: the delivery log, redelivery, a test callback, disabled endpoints')
    .build();
  return buildApiDocument({ controllers: MERCHANT_API_CONTROLLERS, config, extraModels: CALLBACK_MODELS, callbacksByOperation: CALLBACKS_BY_OPERATION });
}

/** The checked-in file's exact text: 2-space indent and a trailing newline. */
export const serializeMerchantApiDocument: (document: OpenAPIObject) => string = serializeApiDocument;
