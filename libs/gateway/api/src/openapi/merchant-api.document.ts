import { Module, type Provider } from '@nestjs/common';
import { GUARDS_METADATA, INTERCEPTORS_METADATA, PARAMTYPES_METADATA, PIPES_METADATA, SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { CALLBACK_MODELS, CALLBACKS_BY_OPERATION } from './callback-payloads';
import { ErrorResponse } from './error.response';
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

/**
 * Only the merchant controllers: the description must not depend on Kafka, PostgreSQL or
 * anything a provider would connect to. Preview mode instantiates nothing but still resolves
 * every constructor's tokens (controllers' and their guards'), so each token gets an empty
 * stand-in, found from Nest's own metadata so a new dependency needs no change here.
 */
@Module({ controllers: MERCHANT_API_CONTROLLERS, providers: standInsFor(MERCHANT_API_CONTROLLERS) })
class MerchantApiDocumentModule {}

type Constructor = abstract new (...args: never[]) => unknown;

function standInsFor(controllers: readonly Constructor[]): Provider[] {
  const enhancers = controllers.flatMap((controller) => [controller, ...enhancersOf(controller), ...Object.getOwnPropertyNames(controller.prototype).flatMap((name) => enhancersOf(controller.prototype[name]))]);
  const tokens = new Set<unknown>();
  for (const type of enhancers.filter((item): item is Constructor => typeof item === 'function')) {
    const declared = (Reflect.getMetadata(PARAMTYPES_METADATA, type) ?? []) as unknown[];
    const overrides = (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, type) ?? []) as Array<{ index: number; param: unknown }>;
    declared.forEach((token, index) => tokens.add(overrides.find((override) => override.index === index)?.param ?? token));
  }
  return [...tokens].filter((token) => token !== undefined && token !== Object).map((token) => ({ provide: token as string, useValue: {} }));
}

function enhancersOf(target: unknown): unknown[] {
  if (typeof target !== 'function') return [];
  return [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA].flatMap((key) => (Reflect.getMetadata(key, target) ?? []) as unknown[]);
}

/**
 * Builds the OpenAPI 3.0.4 description of /v2 from the controllers' decorators, without
 * infrastructure: Nest's `preview` mode reads the module graph but instantiates no provider,
 * so this runs in a unit test, in `npm run openapi` and at the gateway's boot alike.
 */
export async function buildMerchantApiDocument(): Promise<OpenAPIObject> {
  const app = await NestFactory.create(MerchantApiDocumentModule, new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  try {
    const config = new DocumentBuilder()
      .setOpenAPIVersion('3.0.4')
      .setTitle('Merchant payments API')
      .setDescription(DESCRIPTION)
      .setVersion(MERCHANT_API_VERSION)
      .addServer('https://api.payments.example', 'Production')
      .addServer('http://127.0.0.1:3000', 'Local development (npm start, docker compose)')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Your merchant_id.' }, 'x-api-key')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'x-timestamp', description: 'Unix time in seconds, within five minutes of the server clock.' }, 'x-timestamp')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'x-signature', description: SIGNING_RULES }, 'x-signature')
      .addTag('Payments', 'Pay-ins and payouts (endpoints 1 to 7)')
      .addTag('Merchant', 'Profile, balances, methods and secrets (endpoints 8 to 10)')
      .addTag('Withdrawals', 'Withdrawals to crypto wallets (endpoints 11 to 13)')
      .addTag('Disputes', 'Disputes on pay-ins (endpoints 14 to 16)')
      .addTag('Webhooks', 'Your callbacks: the delivery log, redelivery, a test callback, disabled endpoints')
      .build();
    const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorResponse, ...CALLBACK_MODELS] });
    return sortedKeys(withClosedRequestBodies(withCommonResponseParts(document))) as OpenAPIObject;
  } finally {
    await app.close();
  }
}

const REQUEST_ID_HEADER = { description: 'This request\'s id, also in error bodies: quote it to support', schema: { type: 'string' } };
const RETRY_AFTER_HEADER = { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } };

/** What every operation shares, added once here rather than on each handler: headers on every answer, callbacks. */
function withCommonResponseParts(document: OpenAPIObject): OpenAPIObject {
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as Array<{ operationId?: string; responses?: Record<string, { headers?: Record<string, unknown> }>; callbacks?: object }>) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = { ...response.headers, 'x-request-id': REQUEST_ID_HEADER, ...(status === '429' || status === '503' ? { 'Retry-After': RETRY_AFTER_HEADER } : {}) };
      }
      const callbacks = operation.operationId ? CALLBACKS_BY_OPERATION[operation.operationId] : undefined;
      if (callbacks) operation.callbacks = callbacks;
    }
  }
  return document;
}

/**
 * The server refuses unknown fields (400 VALIDATION_ERROR naming each, docs/api/endpoints.md), so
 * every request body's schema, and every object schema it references, says
 * additionalProperties: false; without it clients and fuzzers take extra fields for allowed.
 */
function withClosedRequestBodies(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, { type?: string; additionalProperties?: unknown }>;
  const close = (schema: unknown, seen: Set<string>): void => {
    if (!schema || typeof schema !== 'object') return;
    const ref = (schema as { $ref?: string }).$ref;
    if (ref) {
      const name = ref.replace('#/components/schemas/', '');
      if (seen.has(name) || !schemas[name]) return;
      seen.add(name);
      if (schemas[name].type === 'object') schemas[name].additionalProperties = false;
      close(schemas[name], seen);
      return;
    }
    for (const value of Object.values(schema)) close(value, seen);
  };
  const seen = new Set<string>();
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as Array<{ requestBody?: unknown }>) close(operation.requestBody, seen);
  }
  return document;
}

/** Stable key order, so the checked-in file changes only where the contract does. Arrays keep their order (it can mean something: enums, parameters). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]));
  return value;
}

/** The checked-in file's exact text: 2-space indent and a trailing newline. */
export function serializeMerchantApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
