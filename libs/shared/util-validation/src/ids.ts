/**
 * The shape of every identifier that crosses a service boundary. Each hop (gateway, payments,
 * ledger) checks ids against these before using them, so client input such as a NUL byte
 * never reaches a database: a path id that does not match can name nothing (404), a body field
 * that does not match is a VALIDATION_ERROR.
 */

/** docs/api/endpoints.md "Identifiers": 1 to 64 characters from A-Z a-z 0-9 . _ - : / (case-sensitive). */
export const ORDER_ID_PATTERN = /^[A-Za-z0-9._:/-]{1,64}$/;
export const ORDER_ID_RULE = 'must be 1 to 64 characters from A-Z a-z 0-9 . _ - : /';

/**
 * Merchant ids are public (sent as x-api-key): `mch_` and 12 random bytes in hex. A sandbox
 * (test-mode) merchant is `test_` and the id of the live merchant it belongs to, so the mode is
 * visible in every key, log line, topic key and ledger account, and cannot be forged: it is the
 * authenticated identity itself.
 */
export const MERCHANT_ID_PATTERN = /^(test_)?mch_[0-9a-f]{24}$/;

/** The visible prefix of a sandbox merchant's id (docs/api/sandbox.md). */
export const TEST_MERCHANT_ID_PREFIX = 'test_';

export function isTestMerchantId(merchantId: string): boolean {
  return merchantId.startsWith(TEST_MERCHANT_ID_PREFIX);
}

/** The sandbox merchant of a live merchant. */
export function testMerchantIdFor(liveMerchantId: string): string {
  return `${TEST_MERCHANT_ID_PREFIX}${liveMerchantId}`;
}

/** Payment agents: `agt_` and 12 random bytes in hex. */
export const AGENT_ID_PATTERN = /^agt_[0-9a-f]{24}$/;

/** Payout receipts: `rcp_` and 12 random bytes in hex. */
export const RECEIPT_ID_PATTERN = /^rcp_[0-9a-f]{24}$/;

/** Payer-page tokens: base64url (issued ones are 18 random bytes, 24 characters; the pattern leaves room to grow). */
export const PAYER_PAGE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** Method names as the catalog spells them, e.g. bank_card. */
/** A payer-page token's SHA-256, hex: what payer-page commands carry instead of the token. */
export const PAYER_PAGE_TOKEN_HASH_PATTERN = /^[0-9a-f]{64}$/;

/** The vault reference of an encrypted payout recipient account (payments). */
export const RECIPIENT_ACCOUNT_REF_PATTERN = /^acct_[0-9a-f]{24}$/;

export const METHOD_PATTERN = /^[a-z0-9_]{1,40}$/;
export const COUNTRY_PATTERN = /^[A-Z]{2}$/;
export const CURRENCY_CODE_PATTERN = /^[A-Z0-9]{3,10}$/;

/**
 * Ids services make up for each other (hold ids, adjustment ids, references, operator ids):
 * printable ASCII without spaces, at most 200 characters.
 */
export const INTERNAL_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** A payout recipient's account: letters, digits, space and + - . / : (card numbers, IBANs, phone numbers, UPI ids). */
export const ACCOUNT_NUMBER_PATTERN = /^[A-Za-z0-9 +\-./:]{1,64}$/;
export const ACCOUNT_NUMBER_RULE = 'must be 1 to 64 characters: letters, digits, space and + - . / :';
