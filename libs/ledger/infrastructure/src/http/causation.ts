import { randomUUID } from 'node:crypto';
import type { Causation } from '@mp/shared-command-handling';

/** A request's causation: its own id, correlated with the caller's request id when it sent one. */
export function requestCausation(headers: Record<string, string | string[] | undefined>): Causation {
  const id = randomUUID();
  const requestId = headers['x-request-id'];
  const correlationId = typeof requestId === 'string' && /^[\w.:-]{1,128}$/.test(requestId) ? requestId : id;
  return { id, correlationId };
}
