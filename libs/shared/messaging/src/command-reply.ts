import { createEnvelope, type MessageEnvelope } from './envelope';
import type { OutgoingMessage } from './messaging-port';

/**
 * The reply to a command, sent once the command's transaction has committed: on the command's
 * `replyTo` topic, keyed and correlated by its correlation id, caused by the command (the
 * gateway matches replies by causation id). Null when the sender asked for no reply.
 */
export function commandReplyMessage(command: MessageEnvelope, reply: { type: string; source: string; data: unknown }): OutgoingMessage | null {
  if (!command.replyTo) return null;
  return {
    topic: command.replyTo,
    key: command.correlationId,
    envelope: createEnvelope({
      type: reply.type,
      schemaVersion: 1,
      source: reply.source,
      subject: command.subject,
      data: reply.data,
      correlationId: command.correlationId,
      causationId: command.id,
    }),
  };
}
