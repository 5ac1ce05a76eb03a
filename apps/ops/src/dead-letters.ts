/**
 * Operators' dead-letter tool (npm run dlq): what the consumer error policy gave up on, and
 * sending it back once the cause is fixed.
 *
 *   npm run dlq -- list payments.order.events       every dead letter, oldest first, with its error
 *   npm run dlq -- replay payments.order.events     send the ones not replayed before back to the topic
 *
 * Topics are logical names (KAFKA_NAMESPACE is applied). Add --json for machine-readable output.
 * On a secured broker a replay runs as the topic's replay principal (replayPrincipalOf, e.g.
 * dlq-replay-payments-order-events), which may write that topic only, with the password in
 * DLQ_REPLAY_<TOPIC>_KAFKA_PASSWORD; it refuses to run as any other principal. A listing runs as
 * KAFKA_SASL_USERNAME.
 * Exit code 0 when done, 1 when a replay refused a dead letter, 2 when it could not run. Replays
 * are safe: every consumer's inbox skips a message it already applied, and a replay sends only to
 * the topic named here, never to one a dead letter's headers name.
 */
import { deadLetterTopicOf, KafkaMessageBroker, replayPasswordVariableOf, replayPrincipalOf } from '@mp/shared-messaging';
import { ConfigError, ConfigReader, parseCommandLine, readKafkaConnectionConfig, type KafkaConnectionConfig } from '@mp/shared-util-config';

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
  const security = action === 'replay' ? replaySecurity(reader, kafka, topic) : kafka.kafkaSecurity;
  reader.assertValid();
  const broker = new KafkaMessageBroker({
    clientId: 'ops-dead-letters',
    brokers: kafka.kafkaBrokers,
    namespace: kafka.kafkaNamespace,
    security,
    log: () => undefined,
  });
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
        console.log(
          `${letter.deadLetteredAt}  ${letter.sourceTopic}[${letter.sourcePartition}]@${letter.sourceOffset}  ${letter.messageType ?? '(unparseable)'} ${letter.messageId ?? ''}  key=${letter.key ?? ''}  attempts=${letter.attempts}`,
        );
        console.log(`    ${letter.error}`);
      }
      console.log(`${letters.length} dead letter(s) of ${topic}`);
    }
    return 0;
  } finally {
    await broker.disconnect();
  }
}

/**
 * A replay's credentials: the topic's replay principal, whatever KAFKA_SASL_USERNAME says, so the
 * replay can write no topic but `topic` (the broker's ACLs, apps/ops/src/kafka-access.ts). Its
 * password is DLQ_REPLAY_<TOPIC>_KAFKA_PASSWORD, or KAFKA_SASL_PASSWORD when KAFKA_SASL_USERNAME
 * already names that principal. Run as anyone else (a service's principal, the admin), it refuses.
 */
function replaySecurity(reader: ConfigReader, kafka: KafkaConnectionConfig, topic: string): KafkaConnectionConfig['kafkaSecurity'] {
  if (!kafka.kafkaSecurity) return null; // a PLAINTEXT loopback broker (npm start) has no principals
  const username = replayPrincipalOf(topic);
  const variable = replayPasswordVariableOf(topic);
  const password = reader.optionalString(variable) ?? (kafka.kafkaSecurity.username === username ? kafka.kafkaSecurity.password : null);
  if (password === null)
    reader.problem(`${variable} is not set: a replay of ${topic} runs as ${username}, which may write ${topic} only, never as ${kafka.kafkaSecurity.username}`);
  return { ...kafka.kafkaSecurity, username, password: password ?? '' };
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
    console.error(`dead letters: ${message}`);
    process.exit(2);
  },
);
