import type { BackofficePrincipal } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';

/**
 * The one place the gateway names the operator who acts (on money: conversions, deposit
 * adjustments, approvals; and on disputes, withdrawals and merchants' settings): the person the
 * back-office credential that authenticated the request belongs to (`op_…`), never anything from
 * the body, and never the credential's own id, since one operator may hold several. It goes into
 * the service token's actor claim.
 */
export function actingOperatorId(principal: BackofficePrincipal): string {
  if (principal.role !== 'operator' || principal.operatorId === null) throw new DomainError('FORBIDDEN', 'Only an operator may do this');
  return principal.operatorId;
}
