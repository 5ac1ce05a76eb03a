import type { BackofficePrincipal } from '@mp/access-infrastructure';

/**
 * The one place the gateway names the operator who acts on money (conversions, deposit
 * adjustments, approvals): the id of the back-office credential that authenticated the
 * request, never anything from the body. When internal calls move to signed service tokens
 * carrying the actor (issue 20), this is what goes into the token's claim.
 */
export function actingOperatorId(principal: BackofficePrincipal): string {
  return principal.credentialId;
}
