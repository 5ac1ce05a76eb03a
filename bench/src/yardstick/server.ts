/**
 * The benchmark's yardsticks: what a competent single-process program does for endpoints 1
 * (create pay-in) and 3 (status) on this machine, so the system's figures have a denominator
 * measured in the same run.
 *
 * - B2 (YARDSTICK_MODE=monolith): Fastify + node-postgres. The same signature rules as the
 *   gateway (the access domain's functions over the raw body bytes), the same body checks
 *   (exact amounts from the JSON text, unknown fields refused, the default method catalog's
 *   limits and fee), merchant secrets sealed with AES-256-GCM and cached like the gateway does,
 *   then ONE statement per create: insert unless (merchant_id, order_id) exists, plus an outbox
 *   row, committed synchronously; a retry answers the stored order, a different amount 409.
 *   Status is a primary-key read. Prepared statements, one pool sized for two cores.
 *   No outbox relay runs: the rows are written, not published (an upper bound of the monolith).
 * - B1 (YARDSTICK_MODE=bare): the same HTTP, signature and body work, then a canned answer:
 *   no database. Secrets come from YARDSTICK_MERCHANTS (JSON {merchantId: secret}).
 *
 * Run: node tools/run-built.mjs bench/src/yardstick/server.ts (the bench starts its build).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { LosslessNumber, parse, stringify } from 'lossless-json';
import { Pool } from 'pg';
import {
  AUTH_HEADERS,
  apiSecretAssociatedData,
  canonicalSignedPath,
  checkTimestamp,
  computeSignature,
  MERCHANT_ID_PATTERN,
  SecretBox,
  signaturesMatch,
} from '@mp/access-domain';
import { DEFAULT_METHOD_CATALOG, incomingMethodsFor } from '@mp/payments-domain';
import { calculateFeeMinor, formatAmountMinor, isKnownCurrency, parseAmountLiteral } from '@mp/shared-util-money';
import { CREATE_PAYIN_SQL, FIND_MERCHANT_SQL, FIND_ORDER_SQL, YARDSTICK_SCHEMA } from './schema';

const mode = process.env['YARDSTICK_MODE'] === 'bare' ? 'bare' : 'monolith';
const port = Number(process.env['YARDSTICK_PORT'] ?? 3100);
const publicBaseUrl = `http://127.0.0.1:${port}`;
const CREDENTIAL_CACHE_TTL_MS = 30_000; // the gateway's default
const UNKNOWN_KEY_SECRET = Buffer.alloc(32, 0);
const ORDER_ID_PATTERN = /^[A-Za-z0-9._:/-]{1,64}$/;
const INCOMING_FIELDS = new Set(['order_id', 'amount', 'currency', 'country', 'callback_url']);

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ field: string; issue: string }> = [],
  ) {
    super(message);
  }
}

class NumberLiteral {
  constructor(readonly literal: string) {}
}

interface OrderRow {
  merchant_id: string;
  order_id: string;
  amount_minor: string;
  fee_minor: string;
  currency: string;
  country: string;
  callback_url: string;
  status: string;
  payer_token: string;
  created_at: Date;
  expires_at: Date;
}

const pool =
  mode === 'monolith' ? new Pool({ connectionString: requiredEnv('YARDSTICK_DATABASE_URL'), max: Number(process.env['YARDSTICK_POOL_MAX'] ?? 10) }) : null;
const secretBox = mode === 'monolith' ? new SecretBox(Buffer.from(requiredEnv('YARDSTICK_MASTER_KEY'), 'base64')) : null;
const bareSecrets = new Map<string, string>(mode === 'bare' ? Object.entries(JSON.parse(requiredEnv('YARDSTICK_MERCHANTS')) as Record<string, string>) : []);
const secretCache = new Map<string, { secret: string | null; expiresAt: number }>();

async function secretOf(merchantId: string): Promise<string | null> {
  if (mode === 'bare') return bareSecrets.get(merchantId) ?? null;
  const cached = secretCache.get(merchantId);
  if (cached && cached.expiresAt > Date.now()) return cached.secret;
  const { rows } = await (pool as Pool).query({ name: 'find-merchant', text: FIND_MERCHANT_SQL, values: [merchantId] });
  const row = rows[0] as { status: string; key_version: number; secret_iv: Buffer; secret_auth_tag: Buffer; secret_ciphertext: Buffer } | undefined;
  const secret =
    row && row.status === 'active'
      ? (secretBox as SecretBox).open(
          { keyVersion: row.key_version, iv: row.secret_iv, authTag: row.secret_auth_tag, ciphertext: row.secret_ciphertext },
          apiSecretAssociatedData(merchantId),
        )
      : null;
  secretCache.set(merchantId, { secret, expiresAt: Date.now() + CREDENTIAL_CACHE_TTL_MS });
  return secret;
}

/** Spec section 5, as the gateway's guard does it: headers, timestamp, key, HMAC over the raw body. */
async function authenticate(request: FastifyRequest, rawBody: Buffer): Promise<string> {
  if (rawBody.length > 0 && !/^application\/json\s*(;|$)/i.test(String(request.headers['content-type'] ?? ''))) {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be sent as application/json');
  }
  const apiKey = request.headers[AUTH_HEADERS.apiKey];
  const timestamp = request.headers[AUTH_HEADERS.timestamp];
  const signature = request.headers[AUTH_HEADERS.signature];
  if (typeof apiKey !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string' || !apiKey || !timestamp || !signature) {
    throw new HttpError(401, 'MISSING_AUTH_HEADER', 'Missing authentication header');
  }
  if (!checkTimestamp(timestamp, Math.floor(Date.now() / 1000)).ok) throw new HttpError(401, 'TIMESTAMP_OUT_OF_RANGE', 'x-timestamp is not within 300 seconds');
  let signedPath: string;
  try {
    signedPath = canonicalSignedPath(request.raw.url ?? request.url);
  } catch {
    throw new HttpError(400, 'VALIDATION_ERROR', 'The request path is not valid percent-encoded UTF-8');
  }
  const secret = MERCHANT_ID_PATTERN.test(apiKey) ? await secretOf(apiKey) : null;
  const expected = computeSignature(secret ?? UNKNOWN_KEY_SECRET, timestamp, signedPath, rawBody);
  if (secret === null) throw new HttpError(401, 'INVALID_API_KEY', 'The x-api-key is not an active merchant id');
  if (!signaturesMatch(expected, signature)) throw new HttpError(401, 'INVALID_SIGNATURE', 'The signature does not match');
  return apiKey;
}

interface ValidPayIn {
  orderId: string;
  amountMinor: bigint;
  feeMinor: bigint;
  currency: string;
  country: string;
  callbackUrl: string;
}

/** Endpoint 1's body: every problem at once, amounts exact from the JSON text. */
function validatePayIn(rawBody: Buffer): ValidPayIn {
  let body: unknown;
  try {
    body = parse(rawBody.toString('utf8'), undefined, (literal: string) => new NumberLiteral(literal));
  } catch (error) {
    throw new HttpError(400, 'VALIDATION_ERROR', 'The request body is not valid JSON', [{ field: 'body', issue: (error as Error).message }]);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'VALIDATION_ERROR', 'The request body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const details: Array<{ field: string; issue: string }> = [];
  for (const field of INCOMING_FIELDS) if (fields[field] === undefined || fields[field] === null) details.push({ field, issue: 'is required' });
  for (const field of Object.keys(fields)) if (!INCOMING_FIELDS.has(field)) details.push({ field, issue: 'is not a known field' });
  const { order_id: orderId, amount, currency, country, callback_url: callbackUrl } = fields;
  if (typeof orderId !== 'string' || !ORDER_ID_PATTERN.test(orderId))
    details.push({ field: 'order_id', issue: 'must be 1 to 64 characters from A-Z a-z 0-9 . _ - : /' });
  if (typeof currency !== 'string' || !isKnownCurrency(currency)) details.push({ field: 'currency', issue: 'must be a known currency code' });
  if (typeof country !== 'string' || !/^[A-Z]{2}$/.test(country)) details.push({ field: 'country', issue: 'must be a two-letter country code' });
  if (typeof callbackUrl !== 'string' || callbackUrl.length > 2048 || !/^https:\/\/\S+$/.test(callbackUrl))
    details.push({ field: 'callback_url', issue: 'must be an https URL' });
  let amountMinor = 0n;
  if (!(amount instanceof NumberLiteral)) details.push({ field: 'amount', issue: 'must be a JSON number' });
  else if (typeof currency === 'string' && isKnownCurrency(currency)) {
    const parsed = parseAmountLiteral(amount.literal, currency);
    if (parsed.ok) amountMinor = parsed.amountMinor;
    else details.push({ field: 'amount', issue: parsed.reason });
  }
  if (details.length > 0) throw new HttpError(400, 'VALIDATION_ERROR', 'The payment is not valid', details);
  const method = incomingMethodsFor(DEFAULT_METHOD_CATALOG, country as string, currency as string)[0];
  if (!method)
    throw new HttpError(400, 'VALIDATION_ERROR', 'No method for this country and currency', [{ field: 'currency', issue: 'not offered in this country' }]);
  if (amountMinor < method.minAmountMinor || amountMinor > method.maxAmountMinor)
    throw new HttpError(400, 'VALIDATION_ERROR', 'The amount is outside the method limits', [{ field: 'amount', issue: 'outside the limits' }]);
  const feeMinor = calculateFeeMinor(amountMinor, method.feeRateBasisPoints, method.feeFixedMinor);
  return { orderId: orderId as string, amountMinor, feeMinor, currency: currency as string, country: country as string, callbackUrl: callbackUrl as string };
}

function orderView(row: OrderRow): string {
  return stringify({
    order_id: row.order_id,
    direction: 'incoming',
    status: row.status,
    amount: new LosslessNumber(formatAmountMinor(BigInt(row.amount_minor), row.currency)),
    fee: new LosslessNumber(formatAmountMinor(BigInt(row.fee_minor), row.currency)),
    currency: row.currency,
    country: row.country,
    callback_url: row.callback_url,
    redirect_url: `${publicBaseUrl}/pay/${row.payer_token}`,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
  }) as string;
}

async function createPayIn(merchantId: string, rawBody: Buffer): Promise<{ status: number; body: string }> {
  const payIn = validatePayIn(rawBody);
  const token = randomBytes(16).toString('base64url');
  if (mode === 'bare') {
    const now = new Date();
    const row: OrderRow = {
      merchant_id: merchantId,
      order_id: payIn.orderId,
      amount_minor: String(payIn.amountMinor),
      fee_minor: String(payIn.feeMinor),
      currency: payIn.currency,
      country: payIn.country,
      callback_url: payIn.callbackUrl,
      status: 'PENDING',
      payer_token: token,
      created_at: now,
      expires_at: new Date(now.getTime() + 30 * 60_000),
    };
    return { status: 201, body: orderView(row) };
  }
  const event = JSON.stringify({
    type: 'IncomingPaymentCreated',
    merchantId,
    orderId: payIn.orderId,
    amountMinor: String(payIn.amountMinor),
    feeMinor: String(payIn.feeMinor),
    currency: payIn.currency,
    occurredAt: new Date().toISOString(),
  });
  const values = [merchantId, payIn.orderId, String(payIn.amountMinor), String(payIn.feeMinor), payIn.currency, payIn.country, payIn.callbackUrl, token, event];
  const created = await (pool as Pool).query<OrderRow>({ name: 'create-payin', text: CREATE_PAYIN_SQL, values });
  if (created.rows[0]) return { status: 201, body: orderView(created.rows[0]) };
  const existing = (await (pool as Pool).query<OrderRow>({ name: 'find-order', text: FIND_ORDER_SQL, values: [merchantId, payIn.orderId] })).rows[0];
  if (existing && BigInt(existing.amount_minor) === payIn.amountMinor && existing.currency === payIn.currency)
    return { status: 201, body: orderView(existing) };
  throw new HttpError(409, 'DUPLICATE_ORDER', 'An order with this order_id exists with other parameters', [{ field: 'order_id', issue: 'already used' }]);
}

async function status(merchantId: string, orderId: string): Promise<{ status: number; body: string }> {
  if (mode === 'bare') {
    const now = new Date();
    return {
      status: 200,
      body: orderView({
        merchant_id: merchantId,
        order_id: orderId,
        amount_minor: '150050',
        fee_minor: '3751',
        currency: 'RUB',
        country: 'RU',
        callback_url: 'https://shop.example/cb',
        status: 'PENDING',
        payer_token: 'token',
        created_at: now,
        expires_at: now,
      }),
    };
  }
  const row = (await (pool as Pool).query<OrderRow>({ name: 'find-order', text: FIND_ORDER_SQL, values: [merchantId, orderId] })).rows[0];
  if (!row) throw new HttpError(404, 'ORDER_NOT_FOUND', 'No order with this order_id');
  return { status: 200, body: orderView(row) };
}

async function answer(reply: FastifyReply, work: () => Promise<{ status: number; body: string }>): Promise<void> {
  const requestId = randomUUID();
  try {
    const { status: code, body } = await work();
    await reply.code(code).header('x-request-id', requestId).type('application/json').send(body);
  } catch (error) {
    const known = error instanceof HttpError ? error : new HttpError(500, 'INTERNAL_ERROR', 'Internal error');
    if (!(error instanceof HttpError)) console.error(error);
    await reply
      .code(known.status)
      .header('x-request-id', requestId)
      .type('application/json')
      .send(JSON.stringify({ error: { code: known.code, message: known.message, details: known.details }, request_id: requestId }));
  }
}

async function main(): Promise<void> {
  if (pool) await pool.query(YARDSTICK_SCHEMA);
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  // The signature covers the raw bytes: keep them, parse after verifying.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.get('/health', async () => ({ status: 'ok', mode }));
  app.post('/v2/payments/incoming', async (request, reply) => {
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    await answer(reply, async () => createPayIn(await authenticate(request, rawBody), rawBody));
  });
  app.get<{ Params: { orderId: string } }>('/v2/payments/status/:orderId', async (request, reply) => {
    await answer(reply, async () => status(await authenticate(request, Buffer.alloc(0)), request.params.orderId));
  });
  await app.listen({ host: '127.0.0.1', port });
  const shutdown = async () => {
    await app.close();
    await pool?.end();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
