import { CREDENTIAL_LIFETIME_DAYS_LIMIT, credentialExpiry } from '@mp/access-domain';
import { issuanceAuditDetails, type BackofficePrincipal, type CreatedBackofficeCredential, type IssueResult } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';
import type { JsonNumberLiteral } from '@mp/shared-util-validation';
import type { BackofficeRequest } from './backoffice.guard';

/** The static bound in the request schemas; the configured maximum (at most this) is checked by lifetimeExpiry. */
export const REQUESTED_LIFETIME_DAYS_MAX = CREDENTIAL_LIFETIME_DAYS_LIMIT;

/**
 * When a credential issued now stops working: `requested` days (a null or absent field takes
 * `defaultDays`), refused with 400 VALIDATION_ERROR above the configured `maxDays`, whose name
 * (`setting`) the answer gives so the operator knows it is policy, not a typo.
 */
export function lifetimeExpiry(
  requested: JsonNumberLiteral | null | undefined,
  limits: { defaultDays: number; maxDays: number; setting: string },
  now: Date,
): Date {
  const days = requested == null ? limits.defaultDays : Number(requested.literal);
  if (days > limits.maxDays) {
    throw new DomainError('VALIDATION_ERROR', 'The credential would live longer than this platform allows', [
      { field: 'lifetime_days', issue: `must be at most ${limits.maxDays} (${limits.setting})` },
    ]);
  }
  return credentialExpiry(now, days);
}

/**
 * The issued credential, its issuance noted for the audit trail (who issued what for whom, until
 * when); 403 FORBIDDEN with LIVE_CREDENTIAL_LIMIT when the cap on live credentials is reached,
 * 404 when the agent to renew is unknown.
 */
export function issuedOrRefused(
  result: IssueResult,
  request: BackofficeRequest,
  issuer: BackofficePrincipal,
  refusal: { limit: number; holder: string; notFound?: string },
): CreatedBackofficeCredential {
  if (result.kind === 'not_found') throw new DomainError('NOT_FOUND', refusal.notFound ?? 'Not found');
  if (result.kind === 'limit_reached') {
    throw new DomainError('FORBIDDEN', `${refusal.holder} already holds ${result.live} live credentials, the most allowed`, [
      { field: 'credential', issue: `LIVE_CREDENTIAL_LIMIT: at most ${refusal.limit} live; revoke one, or let one expire, first` },
    ]);
  }
  request.auditDetails = issuanceAuditDetails(result.credential, issuer);
  return result.credential;
}
