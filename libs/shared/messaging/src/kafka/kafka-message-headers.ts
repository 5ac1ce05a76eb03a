// The headers every published message carries next to its envelope, and how a consumer reads one.
import type { IHeaders } from 'kafkajs';

/**
 * Headers every published message carries next to its JSON envelope, copied from it: a consumer
 * passes over a type it has no work for on these alone, without decoding the value.
 */
export const MESSAGE_TYPE_HEADER = 'message-type';
export const MESSAGE_SCHEMA_VERSION_HEADER = 'message-schema-version';

/** A header's value as text (kafkajs gives Buffers); the first value of a repeated header. */
export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
