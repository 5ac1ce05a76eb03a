import { PoisonMessageError } from './envelope';

export type ErrorKind = 'poison' | 'transient' | 'unknown';

/**
 * Connection-level failures of Postgres or the network: the message is fine and will succeed
 * once the dependency is back, so retrying forever (blocking the partition, keeping order)
 * is right and dead-lettering would lose a good message.
 */
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
// SQLSTATE classes 08 (connection), 53 (resources), 57P0x (shutdown), 40001/40P01 (serialization, deadlock).
const TRANSIENT_SQLSTATE = /^(08|53|57P0|40001|40P01)/;

export function classifyError(error: unknown): ErrorKind {
  if (error instanceof PoisonMessageError) return 'poison';
  const candidate = error as { code?: unknown; driverError?: { code?: unknown }; message?: unknown };
  const code = typeof candidate?.code === 'string' ? candidate.code : candidate?.driverError?.code;
  if (typeof code === 'string' && (TRANSIENT_NODE_CODES.has(code) || TRANSIENT_SQLSTATE.test(code))) {
    return 'transient';
  }
  if (typeof candidate?.message === 'string' && /Connection terminated|timeout exceeded when trying to connect/i.test(candidate.message)) {
    return 'transient';
  }
  return 'unknown';
}
