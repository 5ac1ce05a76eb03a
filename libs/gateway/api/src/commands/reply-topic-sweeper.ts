import { GATEWAY_REPLIES_TOPIC } from '@mp/contracts-payments';
import { deadLetterTopicOf, type MessageBroker } from '@mp/shared-messaging';

const DLQ_SUFFIX = deadLetterTopicOf('');

/**
 * Removes the reply topics of gateway replicas that are gone (docs/decisions/gateway-reply-topics.md).
 * A replica that stops cleanly deletes its own topic; one that crashed (SIGKILL, OOM, a lost node)
 * cannot, so every replica sweeps: a reply topic (with its dead-letter topic and consumer group)
 * whose group this sweeper has seen without members on passes at least `graceMs` apart is deleted.
 * The group, not the topic's traffic, is the evidence: a live replica is a member of its group
 * from boot to stop, however idle it is. The grace covers a replica between creating its topic
 * and joining its group, and a member briefly out of its group (a rebalance, a broker restart).
 * What was seen empty is kept in memory only: a restarted sweeper starts its grace anew, which
 * delays a deletion and never hastens one. Several replicas sweeping at once delete the same topic
 * at most twice, and deleting a topic that is gone is not an error.
 */
export class ReplyTopicSweeper {
  private readonly emptySince = new Map<string, number>();

  constructor(
    private readonly broker: Pick<MessageBroker, 'listTopics' | 'groupMemberCounts' | 'deleteTopicsAndGroups'>,
    /** This replica's own reply topic: never a candidate. */
    private readonly ownTopic: string,
    private readonly graceMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** One pass; answers the reply topics it deleted. */
  async sweep(): Promise<string[]> {
    const topics = await this.broker.listTopics(`${GATEWAY_REPLIES_TOPIC}.`);
    // A dead-letter topic left without its reply topic (a deletion cut short) is swept by its reply topic's name.
    const replyTopics = new Set(topics.map((topic) => (topic.endsWith(DLQ_SUFFIX) ? topic.slice(0, -DLQ_SUFFIX.length) : topic)));
    replyTopics.delete(this.ownTopic);
    for (const seen of this.emptySince.keys()) if (!replyTopics.has(seen)) this.emptySince.delete(seen);
    if (replyTopics.size === 0) return [];
    const members = await this.broker.groupMemberCounts([...replyTopics]);
    const now = this.now();
    const gone: string[] = [];
    for (const topic of replyTopics) {
      if ((members.get(topic) ?? 0) > 0) {
        this.emptySince.delete(topic);
        continue;
      }
      const since = this.emptySince.get(topic);
      if (since === undefined) this.emptySince.set(topic, now);
      else if (now - since >= this.graceMs) gone.push(topic);
    }
    if (gone.length === 0) return [];
    await this.broker.deleteTopicsAndGroups({ topics: gone.flatMap((topic) => [topic, deadLetterTopicOf(topic)]), groups: gone });
    for (const topic of gone) this.emptySince.delete(topic);
    return gone;
  }
}
