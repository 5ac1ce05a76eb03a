/**
 * How the chaos load sends a request and records what became of it: merchant requests are
 * signed by the SDK (MerchantClient.prepare) and sent once, without its retries, since a retry
 * would hide the very outcome the run measures; back-office requests go through the test
 * harness's BackofficeClient. Every answer, or its absence, becomes one RequestOutcome line.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { MerchantClient } from '@mp/merchant-sdk';
import type { BackofficeClient } from '@mp/shared-testing';
import type { Operation, RequestOutcome } from './outcomes';

/** Longer than the gateway's command timeout (10 s, then 503 with Retry-After): a timeout here means no answer at all. */
export const REQUEST_TIMEOUT_MS = 15_000;

export interface Answer<T = any> {
  status: number;
  body: T | undefined;
  location?: string | null;
}

export interface RunMerchant {
  merchantId: string;
  sdk: MerchantClient;
}

/** Every outcome of the run, in memory for the verdict and as JSON lines on disk as they happen. */
export class OutcomeLog {
  readonly outcomes: RequestOutcome[] = [];
  private readonly file: WriteStream;
  private sequence = 0;
  /** Requests sent and not answered yet: the drain waits for them. */
  inFlight = 0;

  constructor(
    path: string,
    private readonly startedAtMs: number,
  ) {
    this.file = createWriteStream(path, { flags: 'w' });
  }

  /** ms since the run started: the clock of every outcome and fault. */
  now(): number {
    return Date.now() - this.startedAtMs;
  }

  /** Sends through `send`, which resolves with the answer or rejects on no answer, and records the outcome. */
  async track<T>(
    meta: Omit<RequestOutcome, 'sequence' | 'status' | 'timedOut' | 'sentAtMs' | 'latencyMs' | 'code' | 'retryAfter'>,
    send: (signal: AbortSignal) => Promise<Answer<T> & { retryAfter?: boolean }>,
  ): Promise<Answer<T>> {
    this.sequence += 1;
    const sequence = this.sequence;
    const sentAtMs = this.now();
    this.inFlight += 1;
    const outcome: RequestOutcome = { sequence, ...meta, status: 0, timedOut: false, sentAtMs, latencyMs: 0 };
    try {
      const answer = await send(AbortSignal.timeout(REQUEST_TIMEOUT_MS));
      outcome.status = answer.status;
      const code = (answer.body as { error?: { code?: unknown } } | undefined)?.error?.code;
      if (typeof code === 'string') outcome.code = code;
      if (answer.status === 503) outcome.retryAfter = answer.retryAfter === true;
      return answer;
    } catch (error) {
      outcome.timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      outcome.code = outcome.timedOut ? 'TIMEOUT' : `NO_ANSWER: ${error instanceof Error ? error.message.slice(0, 120) : String(error)}`;
      return { status: 0, body: undefined };
    } finally {
      outcome.latencyMs = this.now() - sentAtMs;
      this.inFlight -= 1;
      this.outcomes.push(outcome);
      this.file.write(`${JSON.stringify(outcome)}\n`);
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.file.end(resolve));
  }
}

async function answerOf(response: Response): Promise<Answer & { retryAfter: boolean }> {
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, body, location: response.headers.get('location'), retryAfter: response.headers.has('retry-after') };
}

/** A merchant API request, signed now by the SDK and sent once. */
export function merchantRequest<T = any>(
  log: OutcomeLog,
  merchant: RunMerchant,
  meta: { operation: Operation; orderId?: string; disputeId?: string; creates?: RequestOutcome['creates'] },
  method: 'GET' | 'POST',
  path: string,
  body?: object,
): Promise<Answer<T>> {
  return log.track({ ...meta, merchantId: merchant.merchantId }, async (signal) => {
    const prepared = merchant.sdk.prepare(method, path, body);
    return answerOf(await fetch(prepared.url, { method, headers: prepared.headers, body: prepared.body ?? undefined, redirect: 'manual', signal }));
  });
}

/** A back-office request (operator or agent), recorded like a merchant's. */
export function backofficeRequest<T = any>(
  log: OutcomeLog,
  client: BackofficeClient,
  meta: { operation: Operation; merchantId: string; orderId?: string; disputeId?: string },
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: object | Buffer,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  return log.track(meta, async (signal) => {
    // The harness's client has no timeout of its own: the abort signal bounds the wait, and the request is left to finish unheard.
    const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    const response = await Promise.race([client.request<T>(method, path, body, headers), aborted]);
    return { status: response.status, body: response.body, retryAfter: response.headers.has('retry-after') };
  });
}

/** The payer asks for the payment details on the payer page (a form post): that assigns the agent. */
export function payerAsksForDetails(log: OutcomeLog, merchantId: string, orderId: string, redirectUrl: string): Promise<Answer> {
  return log.track({ operation: 'payer-details', merchantId, orderId }, async (signal) =>
    answerOf(await fetch(`${redirectUrl}/details`, { method: 'POST', redirect: 'manual', signal })),
  );
}
