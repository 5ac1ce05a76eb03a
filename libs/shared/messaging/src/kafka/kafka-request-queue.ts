/**
 * kafkajs 2.2.4 keeps every broker connection's request queue awake with a 1 ms timer, forever.
 * Its `scheduleCheckPendingRequests` arms a check with `setTimeout(…, throttledUntil - Date.now())`
 * even when nothing is pending; `throttledUntil` starts at -1, so the delay is negative, Node runs
 * the timer after 1 ms, and the check arms the next one. From a connection's first answer on,
 * each connection wakes its process a thousand times a second with nothing to do. Measured with
 * `node tools/run-built.mjs bench/src/gateway-cost.ts --idle-seconds 20`: an idle service spent
 * about 27 ms of CPU a second, most of it in this loop; since Node 23 the same timer is also what
 * printed a TimeoutNegativeWarning per connection.
 *
 * kafkajs gets no releases any more (docs/decisions/kafka-client.md), so the method is replaced
 * here, once, when the adapter is loaded: a check is armed only when a request is waiting to be
 * sent, at the end of the client-side throttle or after kafkajs's own 10 ms. Nothing is lost by
 * not arming it otherwise: a request only waits through `push`, which arms the check itself, and
 * an answer that frees an in-flight slot runs the check at once (`fulfillRequest`). Written by
 * hand because no maintained package carries the fix; the method it replaces is kafkajs's, kept
 * as it is but for that condition.
 */
// kafkajs publishes no types for its internals: the queue's fields this method reads.
interface RequestQueueInternals {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's own interval for a pending request when no throttle end is known (its CHECK_PENDING_REQUESTS_INTERVAL). */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** Marks the replaced method, so a second load of this module (or a test) can tell it is in place. */
export const REQUEST_QUEUE_FIX = Symbol.for('mp.kafkajs.request-queue.idle-timer-fix');

function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottledMs = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottledMs > 0 ? untilUnthrottledMs : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

/** The request queue class kafkajs's connections use (the same module instance: kafkajs requires it by this path). */
export function kafkajsRequestQueuePrototype(): RequestQueueInternals & { [REQUEST_QUEUE_FIX]?: true } {
  // An internal module of kafkajs, with no types and no ES export.
  return (require('kafkajs/src/network/requestQueue') as { prototype: RequestQueueInternals }).prototype;
}

/** Replaces the method once (kafka-request-queue.int.spec.ts fails if a kafkajs release moved it). */
export function fixKafkajsRequestQueueIdleTimer(): void {
  const prototype = kafkajsRequestQueuePrototype();
  if (prototype[REQUEST_QUEUE_FIX]) return;
  prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  prototype[REQUEST_QUEUE_FIX] = true;
}
