import type { IHeaders } from 'kafkajs';
import type { ReceivedMessage } from '../messaging-port';

/** What became of a submission: handled with whatever joined it, or left to its caller (a lone message). */
export type GatherOutcome = 'handled' | 'alone';

interface Submission {
  messages: ReceivedMessage[];
  firstHeaders: IHeaders | undefined;
  resolve: (outcome: GatherOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * The batches of one topic that kafkajs hands a consumer in the same turn of the event loop (the
 * partitions of one fetch, up to `partitionsConsumedConcurrently` of them at once), given to the
 * batch handler as one call, so they share one transaction instead of taking one each. With
 * each partition's batch its own transaction, payments committed about 1.3 times per pay-in
 * created; with the topics made with one partition, 0.5, and a pay-in cost 0.4-1.2 CPU-ms less in
 * all (bench/results/history/2026-11-30-broker-jit-and-socket-writes.md).
 *
 * - Each partition's order holds: its caller submits its next chunk only once this one is
 *   settled, and within a call the submissions keep their order.
 * - A call holds at most `messagesMax` messages; more go in the calls that follow, whole
 *   submissions each.
 * - A lone submission of one message is not handled here (`alone`): its caller takes it through
 *   the error policy message by message, exactly as before there was a gather.
 * - When a call fails, every submission in it is rejected, and each caller handles its own
 *   messages one by one through the error policy, as after any failed batch: its handler's
 *   transaction rolled back, so nothing of the call was applied.
 *
 * Written here: it is a queue emptied once per turn (setImmediate), with a fallback per caller,
 * and no package gathers promises by turn.
 */
export class BatchGather {
  private pending: Submission[] = [];

  constructor(
    private readonly handle: (messages: ReceivedMessage[], firstHeaders: IHeaders | undefined) => Promise<void>,
    private readonly messagesMax: number,
  ) {}

  submit(messages: ReceivedMessage[], firstHeaders: IHeaders | undefined): Promise<GatherOutcome> {
    const { promise, resolve, reject } = Promise.withResolvers<GatherOutcome>();
    this.pending.push({ messages, firstHeaders, resolve, reject });
    if (this.pending.length === 1) setImmediate(() => void this.flush());
    return promise;
  }

  private async flush(): Promise<void> {
    const submissions = this.pending;
    this.pending = [];
    if (submissions.length === 1 && submissions[0].messages.length === 1) return submissions[0].resolve('alone');
    for (const call of callsOfAtMost(submissions, this.messagesMax)) {
      try {
        await this.handle(
          call.flatMap((submission) => submission.messages),
          call[0].firstHeaders,
        );
        call.forEach((submission) => submission.resolve('handled'));
      } catch (error) {
        call.forEach((submission) => submission.reject(error));
      }
    }
  }
}

/** Consecutive runs of whole submissions, each of at most `messagesMax` messages (a larger submission alone). */
function callsOfAtMost(submissions: Submission[], messagesMax: number): Submission[][] {
  const calls: Submission[][] = [];
  let current: Submission[] = [];
  let size = 0;
  for (const submission of submissions) {
    if (current.length > 0 && size + submission.messages.length > messagesMax) {
      calls.push(current);
      current = [];
      size = 0;
    }
    current.push(submission);
    size += submission.messages.length;
  }
  if (current.length > 0) calls.push(current);
  return calls;
}
