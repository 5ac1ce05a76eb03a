import { UnknownKeyVersionError } from './keyring';
import type { SealedSecret, SecretBox } from './secret-box';

/** One sealed value of a store, as read: where it is, what it is bound to, and how it was sealed. */
export interface SealedValue<Position> {
  position: Position;
  associatedData: string;
  sealed: SealedSecret;
}

/**
 * What a store of sealed values offers the re-seal: counts, pages in a stable order, and a
 * guarded write. Stores live with their owning context (access, payments); the walk is here.
 */
export interface ResealableStore<Position> {
  /** What the values are, for the report ("merchant secrets"). */
  readonly name: string;
  /** How many values each key version holds now. */
  countByVersion(): Promise<Map<number, number>>;
  /** Up to `limit` values sealed under one of `versions`, after `after` in the store's order (from the start when null). */
  page(versions: readonly number[], after: Position | null, limit: number): Promise<Array<SealedValue<Position>>>;
  /**
   * Writes every replacement whose value still holds exactly what was read (same key version
   * and IV, a row-level guard), in one transaction; returns how many were written. A value a
   * running service changed meanwhile was sealed by it with its own current key and is left alone.
   */
  replace(replacements: Array<{ value: SealedValue<Position>; resealed: SealedSecret }>): Promise<number>;
}

export interface ResealReport {
  store: string;
  currentVersion: number;
  /** Values per key version before anything was written. */
  before: Record<number, number>;
  /** Values rewritten under the current key (with --dry-run: how many would be). */
  resealed: number;
  /** Values a running service changed between the read and the guarded write, left as it wrote them. */
  changedMeanwhile: number;
  /** Values per retired or unknown key version after the run: zero everywhere means the retired keys can go. */
  remaining: Record<number, number>;
  dryRun: boolean;
}

/**
 * Rewrites, in pages of `batchSize`, every value sealed under a retired key of `box`'s keyring
 * under its current key. Idempotent: a second run finds nothing to do. Safe while the services
 * run: each page is one short transaction of row-level writes guarded by the old version and IV.
 * Refuses to start (writing nothing) when a value is sealed under a version the keyring lacks:
 * that value could not be opened, and removing keys would then be a mistake.
 */
export async function resealRetiredValues<Position>(
  store: ResealableStore<Position>,
  box: SecretBox,
  options: { batchSize: number; dryRun: boolean },
): Promise<ResealReport> {
  const keyring = box.keyring;
  const before = await store.countByVersion();
  const unknown = [...before.keys()].filter((version) => !keyring.versions.includes(version));
  if (unknown.length > 0) {
    const counts = unknown.map((version) => `${before.get(version)} under version ${version}`).join(', ');
    throw new UnknownKeyVersionError(unknown[0] ?? 0, keyring.versions, `${store.name}: ${counts}; nothing was re-sealed`);
  }
  const retired = keyring.retiredVersions.filter((version) => (before.get(version) ?? 0) > 0);
  let resealed = 0;
  let changedMeanwhile = 0;
  if (options.dryRun) resealed = retired.reduce((sum, version) => sum + (before.get(version) ?? 0), 0);
  else if (retired.length > 0) {
    let after: Position | null = null;
    for (;;) {
      const values = await store.page(retired, after, options.batchSize);
      if (values.length === 0) break;
      after = values[values.length - 1]?.position ?? null;
      const replacements = values.map((value) => ({ value, resealed: box.seal(openOrSayWhere(store, box, value), value.associatedData) }));
      const written = await store.replace(replacements);
      resealed += written;
      changedMeanwhile += replacements.length - written;
    }
  }
  const now = await store.countByVersion();
  const remaining = Object.fromEntries([...now].filter(([version]) => version !== keyring.currentVersion));
  return {
    store: store.name,
    currentVersion: keyring.currentVersion,
    before: Object.fromEntries(before),
    resealed,
    changedMeanwhile,
    remaining,
    dryRun: options.dryRun,
  };
}

/** A value that does not open stops the run (the keyring is wrong); the operator needs to know which one and what was done. */
function openOrSayWhere<Position>(store: ResealableStore<Position>, box: SecretBox, value: SealedValue<Position>): string {
  try {
    return box.open(value.sealed, value.associatedData);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${store.name}, value at ${JSON.stringify(value.position)}: ${reason}. Earlier pages are re-sealed; nothing from this page on was written`);
  }
}

/** Whether nothing is left under a key other than the current one. */
export function nothingRemains(report: ResealReport): boolean {
  return Object.values(report.remaining).every((count) => count === 0);
}
