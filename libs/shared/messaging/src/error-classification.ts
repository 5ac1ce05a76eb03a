import { PoisonMessageError } from './envelope';

export type ErrorKind = 'poison' | 'transient' | 'unknown';

/**
 * Connection-level failures of Postgres or the network, and conflicts Postgres itself asks to
 * retry: the message is fine and will succeed once the dependency is back (or the other
 * transaction is done), so retrying until it passes (the partition paused, order kept) is right
 * and dead-lettering would lose a good message.
 */
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
// SQLSTATE classes 08 (connection), 53 (resources), 57P0x (shutdown), 40001/40P01 (serialization,
// deadlock), 55P03 (lock_not_available: a lock_timeout ran out).
const TRANSIENT_SQLSTATE = /^(08|53|57P0|40001|40P01|55P03)/;
// node-postgres and its pool say these in words only, without a code.
const TRANSIENT_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|connection error and is not queryable/i;
/** How deep to follow `cause` and AggregateError's `errors` (a driver error wrapped by TypeORM, by pg-pool, by Node's happy eyeballs). */
const WRAPPING_DEPTH_MAX = 4;

export function classifyError(error: unknown): ErrorKind {
  if (error instanceof PoisonMessageError) return 'poison';
  return isTransient(error, 0) ? 'transient' : 'unknown';
}

function isTransient(error: unknown, depth: number): boolean {
  if (depth > WRAPPING_DEPTH_MAX || typeof error !== 'object' || error === null) return false;
  const candidate = error as { code?: unknown; driverError?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof candidate.code === 'string' && (TRANSIENT_NODE_CODES.has(candidate.code) || TRANSIENT_SQLSTATE.test(candidate.code))) return true;
  if (typeof candidate.message === 'string' && TRANSIENT_MESSAGE.test(candidate.message)) return true;
  const wrapped = [candidate.driverError, candidate.cause, ...(Array.isArray(candidate.errors) ? candidate.errors : [])];
  return wrapped.some((inner) => isTransient(inner, depth + 1));
}
