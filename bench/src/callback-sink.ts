import { CallbackReceiver, type ReceivedCallback } from '@mp/shared-testing';

/**
 * The merchants' callback receiver inside the generator (issue 21): the tests' CallbackReceiver
 * (libs/shared/testing) on 127.0.0.1, answering 200 at once, with the benchmark's reading of it:
 * per callback, when it first arrived (performance.now(), the open loop's clock), so the time
 * from an API call to its callback is measured on one clock. The dispatcher reaches it because
 * the benchmark's system allows http callback URLs on loopback (ALLOW_HTTP_CALLBACK_URLS in the
 * gateway, the test system's dispatcher allow-list). Signatures are not verified here (the e2e
 * tests do that); a callback without one is counted.
 */
export class CallbackSink {
  /** `type order-or-dispute-id` → first arrival. */
  readonly firstArrival = new Map<string, number>();
  readonly countsByType = new Map<string, number>();
  duplicates = 0;
  unsigned = 0;
  unreadable = 0;
  private receiver: CallbackReceiver | null = null;

  async start(): Promise<this> {
    this.receiver = await CallbackReceiver.start({
      keepReceived: false,
      answer: (_n, callback) => {
        this.note(callback, performance.now());
        return { status: 200 };
      },
    });
    return this;
  }

  get url(): string {
    return (this.receiver as CallbackReceiver).url();
  }

  /** Resolves when every key has arrived or `timeoutMs` passed; returns when it stopped waiting. */
  async waitFor(keys: readonly string[], timeoutMs: number): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    while (keys.some((key) => !this.firstArrival.has(key)) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return performance.now();
  }

  describe(): string {
    const types = [...this.countsByType].map(([type, count]) => `${type} ${count}`).join(', ') || 'none';
    return `callbacks received: ${types}; ${this.duplicates} repeated, ${this.unsigned} unsigned, ${this.unreadable} unreadable`;
  }

  async stop(): Promise<void> {
    await this.receiver?.stop();
  }

  private note(callback: ReceivedCallback, arrivedAt: number): void {
    if (!callback.headers['webhook-signature']) this.unsigned += 1;
    const key = callbackKey(callback.body);
    if (key === null) {
      this.unreadable += 1;
      return;
    }
    this.countsByType.set(key.type, (this.countsByType.get(key.type) ?? 0) + 1);
    if (this.firstArrival.has(key.key)) this.duplicates += 1;
    else this.firstArrival.set(key.key, arrivedAt);
  }
}

/** The sink's key of a callback: its type and the id it is about (an order's, or a dispute's). */
export function sinkKey(type: string, id: string): string {
  return `${type} ${id}`;
}

function callbackKey(body: string): { type: string; key: string } | null {
  try {
    const parsed = JSON.parse(body) as { type?: string; data?: { order_id?: string; dispute_id?: string } };
    const id = parsed.data?.dispute_id ?? parsed.data?.order_id;
    return parsed.type && id ? { type: parsed.type, key: sinkKey(parsed.type, id) } : null;
  } catch {
    return null;
  }
}
