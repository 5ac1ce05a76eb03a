/**
 * The heap limits each service runs with (NODE_OPTIONS in docker-compose.yml and in the
 * Kubernetes base Deployments), and the memory limit they need. The compose and Kubernetes
 * specs check that each service has them and that its container's limit fits them. Why these
 * figures: docs/decisions/service-heap-limits.md, measured with bench/memory-profile.mjs.
 */

/** What a service's NODE_OPTIONS sets: V8's old space and one semi-space of the young generation, in MB. */
export interface HeapFlags {
  oldSpaceMb: number;
  semiSpaceMb: number;
}

/**
 * What a service holds outside V8's heap: Node itself, OpenSSL, the sockets' buffers (RSS less
 * the heap's total was 40 MB idle and up to 75 MB after a load), plus in compose the image's
 * health check, a second `node` in the same container every 10 s.
 */
export const OUTSIDE_HEAP_MB = 128;

/**
 * MALLOC_ARENA_MAX for every service: glibc's malloc otherwise keeps up to 8 arenas a core for
 * Node's threads, and what they hold outside V8's heap stays resident between loads.
 */
export const MALLOC_ARENAS = '2';

/** `--max-old-space-size` and `--max-semi-space-size` of a NODE_OPTIONS value; null when either is missing. */
export function heapFlagsOf(nodeOptions: string | undefined): HeapFlags | null {
  const flag = (name: string) => {
    // The last one counts, as in Node.
    const values = [...(nodeOptions ?? '').matchAll(new RegExp(`(?:^|\\s)--${name}=(\\d+)(?=\\s|$)`, 'g'))].map(([, value]) => Number(value));
    return values.at(-1);
  };
  const oldSpaceMb = flag('max-old-space-size');
  const semiSpaceMb = flag('max-semi-space-size');
  return oldSpaceMb === undefined || semiSpaceMb === undefined ? null : { oldSpaceMb, semiSpaceMb };
}

/**
 * The memory limit a service with these flags needs, in MiB: V8's own heap limit (the old space
 * and three semi-spaces: `v8.getHeapStatistics().heap_size_limit` is 176 MB with 128 and 16)
 * and OUTSIDE_HEAP_MB.
 */
export function memoryNeededMb({ oldSpaceMb, semiSpaceMb }: HeapFlags): number {
  return oldSpaceMb + 3 * semiSpaceMb + OUTSIDE_HEAP_MB;
}

/**
 * A memory quantity in MiB. Compose's suffixes (`384M`, `1G`) are binary, as Docker reads them;
 * Kubernetes' `Mi` and `Gi` are binary and its `M` and `G` decimal.
 */
export function memoryMiB(quantity: string, units: 'compose' | 'kubernetes'): number {
  const match = /^(\d+(?:\.\d+)?)(Mi|Gi|M|G)$/.exec(quantity);
  if (!match) throw new Error(`not a memory quantity this check reads: ${quantity}`);
  const value = Number(match[1]);
  const binary: Record<string, number> = { Mi: 1, Gi: 1024, M: 1, G: 1024 };
  const decimal: Record<string, number> = { Mi: 1, Gi: 1024, M: 1e6 / 2 ** 20, G: 1e9 / 2 ** 20 };
  return value * (units === 'compose' ? binary : decimal)[match[2]];
}
