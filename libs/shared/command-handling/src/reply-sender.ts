import { Logger } from '@nestjs/common';
import type { MessageBroker, OutgoingMessage } from '@mp/shared-messaging';

/** How long a reply topic found to exist is trusted before it is checked again (ReplySender.forgetKnownTopics). */
export const KNOWN_TOPICS_LIFETIME_MS = 10 * 60_000;

/** What the sender needs of the messaging port. */
export type ReplyPort = Pick<MessageBroker, 'publish' | 'existingTopics'>;

/**
 * Sends replies to waiting callers (a gateway replica's reply topic) once the transaction that
 * decided them has committed: straight to the broker, not through the outbox (CommandIntake says
 * why). Not awaited by the intake: the next batch need not wait for the broker's ack, and the
 * publisher sends replies queued meanwhile in one request.
 *
 * A reply topic lives as long as its gateway replica. A send to one that is gone would fail the
 * producer's whole request, other messages in it included, after the client's retries; so each
 * topic is checked once before its first reply (the check the outbox relay made for replies) and
 * the replies to a topic that is gone are dropped: nobody waits for them. After a failed send the
 * checks start over. A reply that is not sent is logged; its caller gets 503 at its timeout and
 * asks again, and is answered from what committed.
 */
export class ReplySender {
  private readonly logger = new Logger(ReplySender.name);
  private readonly knownTopics = new Set<string>();
  private knownSinceMs: number;

  constructor(
    private readonly port: ReplyPort,
    private readonly clock: () => number = Date.now,
  ) {
    this.knownSinceMs = clock();
  }

  send(replies: readonly OutgoingMessage[]): void {
    void this.deliver(replies).catch((error: unknown) => {
      this.forgetKnownTopics();
      this.logger.warn(`${replies.length} committed command(s) left unanswered, their callers get 503 and ask again: ${String(error)}`);
    });
  }

  /**
   * Each gateway replica that ever started adds its topic to the known ones, and a replica's
   * topic outlives nothing but the replica: so the set is forgotten every KNOWN_TOPICS_LIFETIME_MS
   * and holds the topics replied to since, one check each per lifetime instead of a name per
   * replica start kept for the life of the process.
   */
  private forgetKnownTopics(): void {
    this.knownTopics.clear();
    this.knownSinceMs = this.clock();
  }

  private async deliver(replies: readonly OutgoingMessage[]): Promise<void> {
    if (this.clock() - this.knownSinceMs >= KNOWN_TOPICS_LIFETIME_MS) this.forgetKnownTopics();
    const unknown = [...new Set(replies.map(({ topic }) => topic))].filter((topic) => !this.knownTopics.has(topic));
    if (unknown.length > 0) {
      const existing = await this.port.existingTopics(unknown);
      existing.forEach((topic) => this.knownTopics.add(topic));
    }
    const deliverable = replies.filter(({ topic }) => this.knownTopics.has(topic));
    if (deliverable.length < replies.length)
      this.logger.warn(`dropping ${replies.length - deliverable.length} reply(s) to gateway replicas that are gone (their reply topics no longer exist)`);
    if (deliverable.length > 0) await this.port.publish(deliverable);
  }
}
