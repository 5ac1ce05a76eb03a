import { requireActor, type VerifiedCaller } from '@mp/shared-service-auth';

/**
 * The one place the ledger learns which operator acts: the operator the gateway's service token
 * names (it authenticated the operator's back-office credential). `operator_id` in the body is
 * still sent for older ledgers; a body naming another operator than the token is refused (403)
 * and logged.
 */
export function actingOperatorOf(request: { caller: VerifiedCaller | undefined; body: { operator_id?: string } }): string {
  return requireActor(request.caller, ['operator'], { id: request.body.operator_id }).id;
}
