import { logLevel, type LogEntry } from 'kafkajs';

export type BrokerLogLevel = 'info' | 'warn' | 'error';

/**
 * Answers a broker gives while it is settling: the group coordinator of a fresh cluster, a
 * leader election, a topic that was just created, a consumer group rebalancing because a member
 * joined or left. kafkajs logs each as an ERROR and then retries or rejoins, and every service
 * meets them at start-up, so an ERROR line there cries wolf. They are logged at info; if they
 * persist, kafkajs gives up with a "Crash" or a failed request, which stays an error.
 */
const SETTLING_BROKER_ANSWERS = [
  'The group is rebalancing, so a rejoin is needed',
  'The group coordinator is not available',
  'This is not the correct coordinator for this group',
  "The coordinator is loading and hence can't process requests for this group",
  'There is no leader for this topic-partition as we are in the middle of a leadership election',
  'This server does not host this topic-partition',
  'This server is not the leader for that topic-partition',
];

/** Whether an error text is one of the settling answers (a crash's message carries it after the error's name). */
export function isSettlingBrokerAnswer(text: string): boolean {
  return SETTLING_BROKER_ANSWERS.some((answer) => text.includes(answer));
}

/**
 * One kafkajs log entry as a level and one line: the message, then its fields as compact JSON.
 * A consumer that crashed on a settling answer (Kafka 4 answers a JoinGroup that comes while a
 * fresh broker loads its group coordinator with one) is restarted by kafkajs at once: its
 * "Crash" line is a warning, and so is kafkajs's "Restarting the consumer" line, which always
 * follows a restart (a crash that is not settling keeps its own line at error).
 */
export function kafkaLogLine({ level, log }: LogEntry): { level: BrokerLogLevel; message: string } {
  const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
  const details = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
  const settling = typeof fields['error'] === 'string' && SETTLING_BROKER_ANSWERS.includes(fields['error']);
  const mapped: BrokerLogLevel = level === logLevel.ERROR || level === logLevel.NOTHING ? 'error' : level === logLevel.WARN ? 'warn' : 'info';
  // A first answer, not one that outlived kafkajs's retries (KafkaJSNumberOfRetriesExceeded stays an error).
  const restartAfterSettling =
    mapped === 'error' &&
    ((message.startsWith('Crash: KafkaJSProtocolError: ') && isSettlingBrokerAnswer(message)) || message.startsWith('Restarting the consumer in '));
  return { level: settling ? 'info' : restartAfterSettling ? 'warn' : mapped, message: `${message}${details}` };
}
