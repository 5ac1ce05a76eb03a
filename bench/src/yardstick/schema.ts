/**
 * The yardstick's tables and its create statement, shared with the pgbench script so the
 * PostgreSQL ceiling runs exactly the yardstick's transaction.
 */
export const YARDSTICK_SCHEMA = `
CREATE TABLE IF NOT EXISTS merchants (
  merchant_id text PRIMARY KEY,
  status text NOT NULL DEFAULT 'active',
  key_version int NOT NULL,
  secret_iv bytea NOT NULL,
  secret_auth_tag bytea NOT NULL,
  secret_ciphertext bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS payment_orders (
  merchant_id text NOT NULL,
  order_id text NOT NULL,
  amount_minor bigint NOT NULL,
  fee_minor bigint NOT NULL,
  currency text NOT NULL,
  country text NOT NULL,
  callback_url text NOT NULL,
  status text NOT NULL,
  payer_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, order_id)
);
CREATE TABLE IF NOT EXISTS outbox (
  id bigserial PRIMARY KEY,
  topic text NOT NULL,
  message_key text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
`;

/**
 * One statement, so one round trip and one synchronous commit: the order is inserted unless
 * (merchant_id, order_id) exists, and the outbox row is written only for a new order, in the
 * same transaction. Parameters: merchant, order, amount, fee, currency, country, callback URL,
 * payer token, event payload (JSON).
 */
export const CREATE_PAYIN_SQL = `
WITH inserted AS (
  INSERT INTO payment_orders (merchant_id, order_id, amount_minor, fee_minor, currency, country, callback_url, status, payer_token, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, 'PENDING', $8, now() + interval '30 minutes')
  ON CONFLICT (merchant_id, order_id) DO NOTHING
  RETURNING merchant_id, order_id, amount_minor, fee_minor, currency, country, callback_url, status, payer_token, created_at, expires_at
), outboxed AS (
  INSERT INTO outbox (topic, message_key, payload)
  SELECT 'payments.order.events', merchant_id || '/' || order_id, $9::jsonb FROM inserted
)
SELECT * FROM inserted`;

export const FIND_ORDER_SQL = `
SELECT merchant_id, order_id, amount_minor, fee_minor, currency, country, callback_url, status, payer_token, created_at, expires_at
  FROM payment_orders WHERE merchant_id = $1 AND order_id = $2`;

export const FIND_MERCHANT_SQL = `SELECT merchant_id, status, key_version, secret_iv, secret_auth_tag, secret_ciphertext FROM merchants WHERE merchant_id = $1`;
