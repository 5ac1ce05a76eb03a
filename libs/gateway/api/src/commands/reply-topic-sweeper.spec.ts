/**
 * Goal: the sweeper deletes a gone replica's reply topic (with its dead-letter topic and group)
 * only after its group was seen without members for the whole grace period, never its own
 * topic nor one whose group has members, and starts the grace anew when members come back.
 * Method: the sweeper over a broker stand-in whose topics and group members the test sets, and
 * a clock the test moves.
 */
import { ReplyTopicSweeper } from './reply-topic-sweeper';

function brokerStandIn(topics: string[], members: Record<string, number>) {
  const deleted: Array<{ topics: string[]; groups: string[] }> = [];
  return {
    deleted,
    members,
    broker: {
      listTopics: async (prefix: string) => topics.filter((topic) => topic.startsWith(prefix)),
      groupMemberCounts: async (groups: string[]) => new Map(groups.map((group) => [group, members[group] ?? 0])),
      deleteTopicsAndGroups: async (request: { topics: string[]; groups: string[] }) => {
        deleted.push(request);
        for (const topic of request.topics) if (topics.includes(topic)) topics.splice(topics.indexOf(topic), 1);
      },
    },
  };
}

describe('ReplyTopicSweeper', () => {
  it('deletes a memberless reply topic once the grace has passed since it was first seen so, and never its own or a live one', async () => {
    const standIn = brokerStandIn(
      [
        'gateway.replies.own',
        'gateway.replies.own.dlq',
        'gateway.replies.live',
        'gateway.replies.live.dlq',
        'gateway.replies.dead',
        'gateway.replies.dead.dlq',
        'payments.commands',
      ],
      { 'gateway.replies.live': 1, 'gateway.replies.own': 0 },
    );
    let now = 1_000;
    const sweeper = new ReplyTopicSweeper(standIn.broker, 'gateway.replies.own', 10_000, () => now);
    expect(await sweeper.sweep()).toEqual([]);
    now += 9_999;
    expect(await sweeper.sweep()).toEqual([]);
    now += 1;
    expect(await sweeper.sweep()).toEqual(['gateway.replies.dead']);
    expect(standIn.deleted).toEqual([{ topics: ['gateway.replies.dead', 'gateway.replies.dead.dlq'], groups: ['gateway.replies.dead'] }]);
    now += 60_000;
    expect(await sweeper.sweep()).toEqual([]);
    expect(standIn.deleted).toHaveLength(1);
  });

  it('starts the grace anew when a group has members again (a replica that was only rejoining)', async () => {
    const standIn = brokerStandIn(['gateway.replies.joining'], { 'gateway.replies.joining': 0 });
    let now = 0;
    const sweeper = new ReplyTopicSweeper(standIn.broker, 'gateway.replies.own', 10_000, () => now);
    await sweeper.sweep();
    now = 8_000;
    standIn.members['gateway.replies.joining'] = 1;
    await sweeper.sweep();
    now = 12_000;
    standIn.members['gateway.replies.joining'] = 0;
    expect(await sweeper.sweep()).toEqual([]);
    now = 21_999;
    expect(await sweeper.sweep()).toEqual([]);
    now = 22_000;
    expect(await sweeper.sweep()).toEqual(['gateway.replies.joining']);
  });

  it("sweeps a dead-letter topic left without its reply topic by the reply topic's name", async () => {
    const standIn = brokerStandIn(['gateway.replies.cut.dlq'], {});
    let now = 0;
    const sweeper = new ReplyTopicSweeper(standIn.broker, 'gateway.replies.own', 0, () => now);
    await sweeper.sweep();
    now = 1;
    expect(await sweeper.sweep()).toEqual(['gateway.replies.cut']);
    expect(standIn.deleted).toEqual([{ topics: ['gateway.replies.cut', 'gateway.replies.cut.dlq'], groups: ['gateway.replies.cut'] }]);
  });
});
