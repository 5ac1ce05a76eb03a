import type { LinkObject } from '@nestjs/swagger';

/**
 * OpenAPI links from a created resource to the operations that take its id as a path parameter:
 * they tell a client (and the fuzzer's stateful phase, docs/operations/fuzzing.md) that e.g.
 * createIncomingPayment's order_id is what getPaymentStatus asks for.
 */
export function linksById(field: string, parameter: string, operationIds: readonly string[]): Record<string, LinkObject> {
  return Object.fromEntries(
    operationIds.map((operationId) => [
      operationId.charAt(0).toUpperCase() + operationId.slice(1),
      {
        operationId,
        parameters: { [parameter]: `$response.body#/${field}` },
        description: `The ${field} of this answer is the ${parameter} of ${operationId}`,
      },
    ]),
  );
}
