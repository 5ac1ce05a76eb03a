import type { MessageEnvelope } from '@mp/shared-messaging';
import type { CommandContract, PayloadClass } from './message-intake';

/**
 * One wire command of a command topic, in its own file: the message type the gateway sends, the
 * class its payload must satisfy, and how it becomes the domain command (`resolve`: what it
 * reads from storage, or asks the network, and the command it hands to the decider). `Context`
 * is what the context's intake gives every file (a transaction, the clock, its stores).
 */
export interface WireCommand<Type extends string, Data, Context, Resolved> {
  readonly type: Type;
  readonly payload: PayloadClass;
  /** A method, not a function property: each file narrows `Data` to its own type's payload. */
  resolve(context: Context, data: Data, envelope: MessageEnvelope): Promise<Resolved>;
}

/**
 * Message type → the file that handles it. Written as an object literal keyed by type, so the
 * compiler refuses a type with no file, a type listed twice, and a file listed under a type
 * that is not its own. Each file narrows the payload's type to its own (`Data`).
 */
export type CommandFiles<Type extends string, Context, Resolved> = { readonly [T in Type]: WireCommand<T, any, Context, Resolved> };

export interface CommandRegistry<Type extends string, Context, Resolved> {
  /** What the intake checks each envelope against: the schema version and each type's payload class. */
  contract: CommandContract<Type>;
  /** The envelope's file resolves it (the contract check has let its type and payload through). */
  resolve(context: Context, envelope: MessageEnvelope): Promise<Resolved>;
}

/**
 * Builds a topic's registry and checks it at boot against the contract's list of types
 * (`types`, e.g. PAYMENT_COMMAND_TYPES): the same mistakes the compiler catches, in case a cast
 * hid one, plus one file registered under two types. A service with a broken registry does not
 * start. Give the type arguments: inferred from the files, a missing one would go unnoticed.
 */
export function commandRegistry<Type extends string, Context, Resolved>(
  schemaVersion: number,
  types: Readonly<Record<string, NoInfer<Type>>>,
  files: NoInfer<CommandFiles<Type, Context, Resolved>>,
): CommandRegistry<Type, Context, Resolved> {
  const problems = registryProblems(Object.values(types), files);
  if (problems.length > 0) throw new Error(`command registry: ${problems.join('; ')}`);
  const byType: Readonly<Record<string, WireCommand<Type, unknown, Context, Resolved>>> = files;
  const payloads = Object.fromEntries(Object.entries(byType).map(([type, file]) => [type, file.payload])) as Record<Type, PayloadClass>;
  return {
    contract: { schemaVersion, payloads },
    resolve: (context, envelope) => byType[envelope.type].resolve(context, envelope.data, envelope),
  };
}

function registryProblems(types: readonly string[], files: Readonly<Record<string, { readonly type: string }>>): string[] {
  const registered = Object.keys(files);
  const problems = [
    ...types.filter((type) => !registered.includes(type)).map((type) => `no file for ${type}`),
    ...registered.filter((type) => !types.includes(type)).map((type) => `${type} is not a type of the contract`),
    ...registered.filter((type) => files[type].type !== type).map((type) => `${type} is registered to the file of ${files[type].type}`),
  ];
  const seen = new Map<object, string>();
  for (const type of registered) {
    const first = seen.get(files[type]);
    if (first === undefined) seen.set(files[type], type);
    else problems.push(`one file is registered for both ${first} and ${type}`);
  }
  return problems;
}
