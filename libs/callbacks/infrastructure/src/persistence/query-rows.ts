// The rows of a raw query, whatever statement it ran.
import type { EntityManager } from 'typeorm';

/**
 * TypeORM's postgres driver answers UPDATE and DELETE with `[rows, affectedCount]` but INSERT
 * and SELECT with the rows alone; this reads the rows of either.
 */
export async function returning<T>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  const result: unknown = await manager.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
