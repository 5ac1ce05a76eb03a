/** What a truthy value of `T` can be: `eventually(read)` resolves with one. */
export type Truthy<T> = Exclude<T, undefined | null | false | 0 | 0n | ''>;

/**
 * The one way tests wait for a condition: polls `read` until `done` holds for its value (by
 * default, until the value is truthy) and resolves with that value; after `timeoutMs` it fails
 * naming `what` and the last value read. A probe answering `undefined` until the thing is there
 * (`() => list.length >= 3 ? list : undefined`) resolves with the thing itself, and a `done` that
 * is a type guard (`(span) => span !== undefined`) narrows the value it resolves with.
 */
export function eventually<T>(read: () => Promise<T> | T): Promise<Truthy<T>>;
export function eventually<T, Done extends T>(read: () => Promise<T> | T, done: (value: T) => value is Done, what?: string, timeoutMs?: number): Promise<Done>;
export function eventually<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what?: string, timeoutMs?: number): Promise<T>;
export async function eventually<T>(read: () => Promise<T> | T, done: (value: T) => boolean = Boolean, what = 'condition', timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms; last: ${JSON.stringify(value)?.slice(0, 1_500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
