import { createHash } from 'node:crypto';
/** Lifetimes and states of back-office credentials (operators' and agents': every one expires). */

export const DAY_MS = 86_400_000;

/** OPERATOR_CREDENTIAL_LIFETIME_DAYS unless configured: a quarter, so a forgotten token does not live for ever. */
export const DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS = 90;

/** AGENT_CREDENTIAL_LIFETIME_DAYS unless configured: the most an agent credential lives, and what it gets. */
export const DEFAULT_AGENT_CREDENTIAL_LIFETIME_DAYS = 90;

/** No configuration may let a back-office credential live longer than a year (and a leap day). */
export const CREDENTIAL_LIFETIME_DAYS_LIMIT = 366;

/**
 * Live credentials one agent may hold: the one it uses and its successor. A renewal overlaps
 * the old credential (docs/operations/agents.md); a third would be a credential nobody retires.
 */
export const AGENT_LIVE_CREDENTIALS_MAX = 2;

export interface BackofficeCredentialState {
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export type BackofficeCredentialCheck = { ok: true } | { ok: false; code: 'CREDENTIAL_REVOKED' | 'CREDENTIAL_EXPIRED' };

/** Revocation wins over expiry: it is the operator's deliberate act, and the clearer answer. */
export function checkBackofficeCredential(state: BackofficeCredentialState, now: Date): BackofficeCredentialCheck {
  if (state.revokedAt !== null && state.revokedAt <= now) return { ok: false, code: 'CREDENTIAL_REVOKED' };
  if (state.expiresAt !== null && state.expiresAt <= now) return { ok: false, code: 'CREDENTIAL_EXPIRED' };
  return { ok: true };
}

export type CredentialState = 'active' | 'expired' | 'revoked';

/** What operators see of a credential or console key at `now` (the check above, as one word). */
export function credentialState(state: BackofficeCredentialState, now: Date): CredentialState {
  const check = checkBackofficeCredential(state, now);
  return check.ok ? 'active' : check.code === 'CREDENTIAL_REVOKED' ? 'revoked' : 'expired';
}

/**
 * How bearer credentials (back-office tokens, console keys, console session cookies) are kept:
 * their SHA-256 in hex. Unlike HMAC secrets they never have to be recovered, so a copy of the
 * table opens nothing.
 */
export function storedCredentialHash(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}

/** When a credential created at `now` with a lifetime of `lifetimeDays` stops working. */
export function credentialExpiry(now: Date, lifetimeDays: number): Date {
  if (!Number.isSafeInteger(lifetimeDays) || lifetimeDays < 1) throw new Error(`invariant: a credential lives at least one whole day, not ${lifetimeDays}`);
  return new Date(now.getTime() + lifetimeDays * DAY_MS);
}

export type MerchantStatus = 'active' | 'suspended';

export type MerchantStatusDecision = { kind: 'change'; status: MerchantStatus } | { kind: 'refuse'; code: 'MERCHANT_STATUS_CONFLICT'; status: MerchantStatus };

/** Suspending a suspended merchant (or reinstating an active one) is refused, so the audit trail never shows a change that did not happen. */
export function decideMerchantStatus(current: MerchantStatus, action: 'suspend' | 'reinstate'): MerchantStatusDecision {
  const target: MerchantStatus = action === 'suspend' ? 'suspended' : 'active';
  return current === target ? { kind: 'refuse', code: 'MERCHANT_STATUS_CONFLICT', status: current } : { kind: 'change', status: target };
}
