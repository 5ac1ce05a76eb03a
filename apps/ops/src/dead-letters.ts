/**
 * Operators' dead-letter tool (npm run dlq): what the consumer error policy gave up on, and
 * sending it back once the cause is fixed.
 *
 *   npm run dlq -- list payments.order.events       every dead letter, oldest first, with its error
 *   npm run dlq -- replay payments.order.events     send the ones not replayed before back to the topic
 *
 * Topics are logical names (KAFKA_NAMESPACE is applied). Add --json for machine-readable output.
 * Exit code 0 when done, 1 when a replay refused a dead letter, 2 when it could not run. Replays
 * are safe: every consumer's inbox skips a message it already applied, and a replay sends only to
 * the topic named here, never to one a dead letter's headers name.
 */
import { deadLetterTopicOf, KafkaMessageBroker } from '@mp/shared-messaging';
import { ConfigError, ConfigReader, parseCommandLine, readKafkaConnectionConfig } from '@mp/shared-util-config';

const USAGE = 'usage: npm run dlq -- list|replay <topic> [--json]   (e.g. payments.order.events, payments.commands)';

async function main(): Promise<number> {
  const { values, positionals } = parseCommandLine({ options: { json: { type: 'boolean', default: false } }, allowPositionals: true });
  const json = values.json;
  const [action, topic] = positionals;
  if ((action !== 'list' && action !== 'replay') || !topic || positionals.length > 2) {
    console.error(USAGE);
    return 2;
  }
  const reader = new ConfigReader(process.env);
  const kafka = readKafkaConnectionConfig(reader);
  reader.assertValid();
  const broker = new KafkaMessageBroker({ clientId: 'ops-dead-letters', brokers: kafka.kafkaBrokers, namespace: kafka.kafkaNamespace, security: kafka.kafkaSecurity, log: () => undefined });
  const queue = broker.deadLetters();
  try {
    if (action === 'replay') {
      const result = await queue.replayDeadLetters(topic);
      if (json) console.log(JSON.stringify(result));
      else {
        console.log(`replayed ${result.replayed} dead letter(s) of ${topic}`);
        for (const letter of result.refused) console.log(`refused ${deadLetterTopicOf(topic)}[${letter.partition}]@${letter.offset}: ${letter.reason}`);
      }
      // Exit 1 when a letter was refused: someone planted it, and an operator should look.
      return result.refused.length === 0 ? 0 : 1;
    }
    const letters = await queue.listDeadLetters(topic);
    if (json) console.log(JSON.stringify(letters));
    else if (letters.length === 0) console.log(`no dead letters for ${topic}`);
    else {
      for (const letter of letters) {
        console.log(`${letter.deadLetteredAt}  ${letter.sourceTopic}[${letter.sourcePartition}]@${letter.sourceOffset}  ${letter.messageType ?? '(unparseable)'} ${letter.messageId ?? ''}  key=${letter.key ?? ''}  attempts=${letter.attempts}`);
        console.log(`    ${letter.error}`);
      }
      console.log(`${letters.length} dead letter(s) of ${topic}`);
    }
    return 0;
  } finally {
    await broker.disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
    console.error(`dead letters: ${message}`);
    process.exit(2);
  },
);
