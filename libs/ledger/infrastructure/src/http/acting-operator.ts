/**
 * The one place the ledger learns which operator acts. Today the gateway authenticated the
 * operator's back-office credential and forwards its id as `operator_id` in the body; when
 * internal calls carry signed service tokens with the actor (issue 20), this reads the
 * verified claim instead and every operator route follows.
 */
export function actingOperatorOf(request: { body: { operator_id: string } }): string {
  return request.body.operator_id;
}
