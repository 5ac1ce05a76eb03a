import { isSettlingBrokerAnswer } from './kafka-log';
import type { TrackedGroup } from './kafka-consumer-settings';
import type { BrokerHealth, ConsumerLag } from '../messaging-port';

/**
 * What the readiness probe reports when its read of the groups' lag failed.
 *
 * A settling answer (a leader election, a topic made a moment ago, a coordinator loading) came
 * from the broker, so the broker is reachable: the probe reports it so, names the answer, and
 * gives each group's lag as of its last fetched batches. Reporting it unreachable would take
 * every replica of every service out of its load balancer at once for an election that kafkajs
 * retries through, and at start-up it made a fresh service log a failed health check. If the
 * answer persists, the consumers give up and crash, and a crashed group is not ready.
 *
 * Anything else (a timeout, a refused connection, an authorization failure) is unreachable.
 */
export function healthAfterFailedLagRead(error: unknown, groups: readonly TrackedGroup[], lastFetchedLags: readonly ConsumerLag[]): BrokerHealth {
  const message = error instanceof Error ? error.message : String(error);
  if (isSettlingBrokerAnswer(message)) {
    return {
      reachable: true,
      settling: message,
      groups: groups.map((group) => ({
        groupId: group.groupId,
        state: group.state,
        lag: lastFetchedLags.filter((lag) => lag.groupId === group.groupId).reduce((sum, lag) => sum + lag.messages, 0),
      })),
    };
  }
  return { reachable: false, error: message, groups: groups.map((group) => ({ groupId: group.groupId, state: group.state, lag: 0 })) };
}
