import { heapFlagsOf, memoryMiB, memoryNeededMb, OUTSIDE_HEAP_MB } from './heap-limits';

describe('heap limits and memory quantities', () => {
  it('reads both heap flags from NODE_OPTIONS, the last of each counting, and nothing from a value without both', () => {
    expect(heapFlagsOf('--max-old-space-size=128 --max-semi-space-size=16')).toEqual({ oldSpaceMb: 128, semiSpaceMb: 16 });
    expect(heapFlagsOf('--max-old-space-size=128 --enable-source-maps --max-semi-space-size=16 --max-old-space-size=192')).toEqual({
      oldSpaceMb: 192,
      semiSpaceMb: 16,
    });
    expect(heapFlagsOf('--max-old-space-size=128')).toBeNull();
    expect(heapFlagsOf('--max-old-space-size-x=128 --max-semi-space-size=16')).toBeNull();
    expect(heapFlagsOf(undefined)).toBeNull();
  });

  it('needs the old space, three semi-spaces and what lives outside the heap', () => {
    expect(memoryNeededMb({ oldSpaceMb: 128, semiSpaceMb: 16 })).toBe(176 + OUTSIDE_HEAP_MB);
  });

  it('reads compose suffixes as binary, and Kubernetes M and G as decimal', () => {
    expect(memoryMiB('384M', 'compose')).toBe(384);
    expect(memoryMiB('1G', 'compose')).toBe(1024);
    expect(memoryMiB('384Mi', 'kubernetes')).toBe(384);
    expect(memoryMiB('1Gi', 'kubernetes')).toBe(1024);
    expect(memoryMiB('400M', 'kubernetes')).toBeCloseTo(381.5, 1);
    expect(() => memoryMiB('384', 'compose')).toThrow('not a memory quantity');
  });
});
