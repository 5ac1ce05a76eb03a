import { PoisonMessageError, type MessageEnvelope } from '@mp/shared-messaging';
import { validationErrorFrom } from '@mp/shared-util-validation';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/**
 * What another context's events on a topic look like: one schema version and, by event type,
 * the class (class-validator, beside the event in libs/contracts) its payload must satisfy.
 */
export interface EventContract<Type extends string = string> {
  schemaVersion: number;
  payloads: Readonly<Record<Type, new () => object>>;
}

/**
 * An external event's payload, checked against its contract where the intake reads it (the
 * `read` step): an unknown schema version or type, or a payload its class refuses, can never
 * succeed, so it is poison naming the event and each bad field. Unlike a command's payload,
 * fields the class does not name pass untouched (producers add optional fields over time, and a
 * consumer deployed before them must still read their events), and the payload is returned as
 * it came, not as the class's instance (docs/decisions/external-event-contracts.md).
 */
export function readEventPayload<Data>(envelope: MessageEnvelope, contract: EventContract): Data {
  if (envelope.schemaVersion !== contract.schemaVersion)
    throw new PoisonMessageError(`unsupported schema version ${envelope.schemaVersion} of ${envelope.type}`);
  if (!Object.hasOwn(contract.payloads, envelope.type)) throw new PoisonMessageError(`unknown event type ${envelope.type}`);
  const data: unknown = envelope.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new PoisonMessageError(`malformed ${envelope.type} ${envelope.id}: the payload must be an object`);
  const errors = validateSync(plainToInstance(contract.payloads[envelope.type], data), { validationError: { target: true, value: true } });
  if (errors.length > 0) {
    const { details } = validationErrorFrom(errors);
    throw new PoisonMessageError(`malformed ${envelope.type} ${envelope.id}: ${details.map((detail) => `${detail.field} ${detail.issue}`).join('; ')}`);
  }
  return data as Data;
}
