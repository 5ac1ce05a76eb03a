/**
 * The chaos run's callback receiver (docs/operations/chaos.md, "The callback sink"): a real HTTP
 * server on 127.0.0.1, one path per merchant, that verifies every callback's Standard Webhooks
 * signature with the merchant's webhook secret (the SDK's verifyCallback, on the
 * standardwebhooks package) and records each delivery by its webhook-id, attempt by attempt.
 * Its modes are the faults a merchant's endpoint can have: slow (answers after the
 * dispatcher's attempt timeout), failing (500) and gone (410, which makes the dispatcher disable
 * the endpoint and park its callbacks until the merchant turns it back on).
 *
 * The HTTP side is the tests' one CallbackReceiver (libs/shared/testing); this file adds what
 * only the chaos run reads: routing by merchant, verification with the SDK a merchant uses,
 * deliveries by webhook-id and the modes.
 */
import { isMerchantApiError, verifyCallback, type MerchantClient } from '@mp/merchant-sdk';
import { CallbackReceiver, type ReceivedCallback, type ReceiverAnswer } from '@mp/shared-testing';
import type { ChaosFault } from './faults';

export type CallbackSinkMode = { kind: 'normal' } | { kind: 'slow'; delayMs: number } | { kind: 'failing' } | { kind: 'gone' };

export interface SinkMerchant {
  merchantId: string;
  /** The merchant's webhook secret (both during a rotation). */
  webhookSecrets: string[];
  /** The merchant's signed client: the gone fault's heal turns its disabled endpoints back on with it. */
  client?: { webhooks: Pick<MerchantClient['webhooks'], 'disabledEndpoints' | 'enableEndpoint'> };
}

export interface SinkAttempt {
  /** When it arrived (Date.now()). */
  at: number;
  /** What the sink answered, or was to answer when the sender gave up. */
  status: number;
  /** The sender closed the connection before the answer (it timed out): not a delivery, whatever the status. */
  abandoned: boolean;
}

export interface SinkDelivery {
  /** `msg_…`: the webhook-id header and the body's id, the same on every attempt. */
  webhookId: string;
  merchantId: string;
  type: string;
  /** The dispute's id for `dispute.*`, otherwise the order's; null for a test callback. */
  subjectId: string | null;
  attempts: SinkAttempt[];
  /** Some attempt was answered 2xx to a sender still waiting for it. */
  acknowledged: boolean;
}

const STATUS_BY_MODE: Record<CallbackSinkMode['kind'], number> = { normal: 200, slow: 200, failing: 500, gone: 410 };

export class CallbackSink {
  /** Every verified callback, by webhook-id. */
  readonly deliveries = new Map<string, SinkDelivery>();
  private currentMode: CallbackSinkMode = { kind: 'normal' };
  private readonly merchants = new Map<string, SinkMerchant>();
  private readonly tally = { received: 0, unverified: 0, unroutable: 0, repeated: 0 };
  /** Set by start(), the one way to make a sink. */
  private receiver!: CallbackReceiver;

  static async start(): Promise<CallbackSink> {
    const sink = new CallbackSink();
    sink.receiver = await CallbackReceiver.start({ keepReceived: false, answer: (_n, callback) => sink.receive(callback) });
    return sink;
  }

  get baseUrl(): string {
    return this.receiver.url('/callbacks/');
  }

  /** The merchant's callback URL on this sink (give it as default_callback_url and callback_url). */
  register(merchant: SinkMerchant): string {
    this.merchants.set(merchant.merchantId, merchant);
    return this.urlFor(merchant.merchantId);
  }

  urlFor(merchantId: string): string {
    return `${this.baseUrl}${encodeURIComponent(merchantId)}`;
  }

  get mode(): CallbackSinkMode {
    return this.currentMode;
  }

  setMode(mode: CallbackSinkMode): void {
    if (mode.kind === 'slow' && !(Number.isFinite(mode.delayMs) && mode.delayMs >= 0))
      throw new Error(`callback sink: delayMs must be a number ≥ 0, got ${mode.delayMs}`);
    this.currentMode = mode;
  }

  counts(): { received: number; unverified: number; unroutable: number; deliveries: number; acknowledged: number; repeated: number } {
    return { ...this.tally, deliveries: this.deliveries.size, acknowledged: this.acknowledgedIds().length };
  }

  /** The webhook-ids some attempt delivered, in first-arrival order. */
  acknowledgedIds(): string[] {
    return [...this.deliveries.values()].filter(({ acknowledged }) => acknowledged).map(({ webhookId }) => webhookId);
  }

  /**
   * Turns back on every endpoint of this sink that the dispatcher disabled (after a 410), through
   * each merchant's signed `POST /v2/webhooks/endpoints/enable`, which sends the parked callbacks.
   */
  async reenableEndpoints(): Promise<{ endpoints: number; resumed: number }> {
    let endpoints = 0;
    let resumed = 0;
    for (const { client } of this.merchants.values()) {
      if (!client) continue;
      const disabled = await client.webhooks.disabledEndpoints();
      for (const { url } of disabled.data.filter((endpoint) => endpoint.url.startsWith(this.baseUrl))) {
        try {
          resumed += (await client.webhooks.enableEndpoint(url)).resumed_deliveries;
          endpoints += 1;
        } catch (error) {
          // Turned back on meanwhile (by an operator, or a retry of this call): nothing left to do.
          if (!isMerchantApiError(error, 'NOT_FOUND')) throw error;
        }
      }
    }
    return { endpoints, resumed };
  }

  /** Answers still held by the slow mode are never sent. */
  async stop(): Promise<void> {
    await this.receiver.stop();
  }

  private receive(callback: ReceivedCallback): ReceiverAnswer {
    this.tally.received += 1;
    const merchant = callback.method === 'POST' ? this.merchantAt(callback.url) : undefined;
    if (!merchant) {
      this.tally.unroutable += 1;
      return { status: 404 };
    }
    const verification = verifyCallback(merchant.webhookSecrets, Buffer.from(callback.body, 'utf8'), callback.headers);
    if (!verification.valid) {
      this.tally.unverified += 1;
      return { status: 400, headers: { 'content-type': 'text/plain' }, body: verification.reason };
    }
    const { event } = verification;
    const delivery = this.deliveries.get(event.id) ?? this.firstDelivery(event, merchant.merchantId);
    const mode = this.currentMode;
    const attempt: SinkAttempt = { at: Date.now(), status: STATUS_BY_MODE[mode.kind], abandoned: false };
    delivery.attempts.push(attempt);
    const sent = (delivered: boolean) => {
      if (!delivered) {
        attempt.abandoned = true;
        return;
      }
      if (attempt.status >= 300) return;
      if (delivery.acknowledged) this.tally.repeated += 1;
      delivery.acknowledged = true;
    };
    return { status: attempt.status, delayMs: mode.kind === 'slow' ? mode.delayMs : undefined, sent };
  }

  private merchantAt(requestUrl: string): SinkMerchant | undefined {
    const path = new URL(requestUrl, this.baseUrl).pathname;
    const prefix = new URL(this.baseUrl).pathname;
    return path.startsWith(prefix) ? this.merchants.get(decodeURIComponent(path.slice(prefix.length))) : undefined;
  }

  private firstDelivery(event: { id: string; type: string; data: unknown }, merchantId: string): SinkDelivery {
    const data = event.data as { order_id?: string; dispute_id?: string };
    const delivery: SinkDelivery = {
      webhookId: event.id,
      merchantId,
      type: event.type,
      subjectId: data.dispute_id ?? data.order_id ?? null,
      attempts: [],
      acknowledged: false,
    };
    this.deliveries.set(event.id, delivery);
    return delivery;
  }
}

/** What the sink's faults read of the runner's ChaosContext. */
export interface CallbackSinkFaultContext {
  log(line: string): void;
}

export type CallbackSinkFault = ChaosFault<CallbackSinkFaultContext>;

export interface CallbackSinkFaultOptions {
  /** How late a slow answer comes: more than the dispatcher's CALLBACK_ATTEMPT_TIMEOUT_MS (2 s in the test system, 15 s by default). */
  slowDelayMs?: number;
  /** How long each mode is held. */
  holdMs?: number;
  /** After the gone mode ends, how long to let 410s still in flight disable their endpoints before turning them back on (done twice). */
  settleMs?: number;
}

const seconds = (ms: number) => `${ms / 1000} s`;
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** The sink's faults: slow, failing and gone, each held for `holdMs` and healed back to normal. */
export function callbackSinkFaults(sink: CallbackSink, options: CallbackSinkFaultOptions = {}): CallbackSinkFault[] {
  const { slowDelayMs = 5_000, holdMs = 10_000, settleMs = 2_000 } = options;
  const backToNormal = async ({ log }: CallbackSinkFaultContext) => {
    sink.setMode({ kind: 'normal' });
    log(`callback sink answers 200 again (${JSON.stringify(sink.counts())})`);
  };
  const held = { holdMs, recoveryFrom: 'heal' as const };
  return [
    {
      kind: 'callback-sink-slow',
      name: `callback sink slow (answers after ${seconds(slowDelayMs)}) for ${seconds(holdMs)}`,
      ...held,
      inject: async () => sink.setMode({ kind: 'slow', delayMs: slowDelayMs }),
      heal: backToNormal,
    },
    {
      kind: 'callback-sink-failing',
      name: `callback sink failing (500) for ${seconds(holdMs)}`,
      ...held,
      inject: async () => sink.setMode({ kind: 'failing' }),
      heal: backToNormal,
    },
    {
      kind: 'callback-sink-gone',
      name: `callback sink gone (410) for ${seconds(holdMs)}, then re-enabled`,
      ...held,
      inject: async () => sink.setMode({ kind: 'gone' }),
      heal: async (context) => {
        await backToNormal(context);
        let endpoints = 0;
        let resumed = 0;
        // Twice: a 410 answered just before the switch may disable its endpoint after the first pass.
        for (let pass = 0; pass < 2; pass += 1) {
          await new Promise((resolve) => setTimeout(resolve, settleMs));
          const reenabled = await sink.reenableEndpoints();
          endpoints += reenabled.endpoints;
          resumed += reenabled.resumed;
        }
        context.log(`callback sink: re-enabled ${plural(endpoints, 'endpoint')}, ${plural(resumed, 'parked callback')} resumed`);
        // Nothing disabled means the dispatcher never acted on a 410 (or no callback came while it was held): the fault proved nothing.
        if (endpoints === 0) throw new Error('no endpoint was disabled by the 410s while the sink was gone');
      },
    },
  ];
}
