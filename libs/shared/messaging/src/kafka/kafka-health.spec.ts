import { KafkaJSProtocolError } from 'kafkajs';
import { healthAfterFailedLagRead } from './kafka-health';
import type { TrackedGroup } from './kafka-consumer-settings';

describe('healthAfterFailedLagRead (the readiness probe when its lag read fails)', () => {
  const groups: TrackedGroup[] = [
    { groupId: 'disputes', topics: ['payments.order.events', 'payments.order.progress'], startFrom: 'earliest', state: 'stable' },
    { groupId: 'disputes-commands', topics: ['disputes.commands'], startFrom: 'latest', state: 'joining' },
  ];
  const lastFetched = [
    { groupId: 'disputes', topic: 'payments.order.events', partition: 0, messages: 3 },
    { groupId: 'disputes', topic: 'payments.order.progress', partition: 1, messages: 4 },
    { groupId: 'ledger', topic: 'payments.order.events', partition: 0, messages: 50 },
  ];

  it('counts a leader election as a broker that answered: reachable, the answer named, lags as last fetched', () => {
    // The error kafkajs rejected the lag read with while a fresh broker elected a new topic's leader.
    const election = new KafkaJSProtocolError({
      message: 'This server is not the leader for that topic-partition',
      type: 'NOT_LEADER_OR_FOLLOWER',
      code: 6,
      retriable: true,
    } as unknown as Error);
    expect(healthAfterFailedLagRead(election, groups, lastFetched)).toEqual({
      reachable: true,
      settling: 'This server is not the leader for that topic-partition',
      groups: [
        { groupId: 'disputes', state: 'stable', lag: 7 },
        { groupId: 'disputes-commands', state: 'joining', lag: 0 },
      ],
    });
  });

  it('reports anything else unreachable, with the reason and no lag', () => {
    for (const failure of [new Error('no answer from the broker within 2000 ms'), new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092')]) {
      expect(healthAfterFailedLagRead(failure, groups, lastFetched)).toEqual({
        reachable: false,
        error: failure.message,
        groups: [
          { groupId: 'disputes', state: 'stable', lag: 0 },
          { groupId: 'disputes-commands', state: 'joining', lag: 0 },
        ],
      });
    }
  });

  it('keeps an authorization refusal unreachable: it does not settle by waiting', () => {
    const refused = new KafkaJSProtocolError({
      message: 'Not authorized to access group: Group authorization failed.',
      type: 'GROUP_AUTHORIZATION_FAILED',
      code: 30,
    } as unknown as Error);
    expect(healthAfterFailedLagRead(refused, groups, lastFetched)).toMatchObject({
      reachable: false,
      error: 'Not authorized to access group: Group authorization failed.',
    });
  });
});
