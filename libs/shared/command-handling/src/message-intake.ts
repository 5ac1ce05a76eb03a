import {
  claimInboxMessages,
  claimInboxMessageWithWrites,
  commandReplyMessage,
  isInboxMessageClaimed,
  MessageAlreadyClaimedError,
  PoisonMessageError,
  transactionInFewTrips,
  withOneOutboxWrite,
  withOneWriteStatement,
  type MessageEnvelope,
  type OutgoingMessage,
} from '@mp/shared-messaging';
import { RequestPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import type { DataSource, EntityManager } from 'typeorm';
import { DEFAULT_CONFLICT_RETRY_POLICY, retryOnConflict } from './conflict-retry';
import { ReplySender, type ReplyPort } from './reply-sender';

/**
 * The one way a service takes in what Kafka delivers (commands and events alike):
 *   read each envelope (outside any transaction: a malformed one is poison, a network question
 *   is asked here) → one transaction: one inbox statement claims the whole batch, each claimed
 *   message's effect in order, its writes (event appends, projections, the outbox) sent as one
 *   statement where nothing reads between them (withOneWriteStatement) → commit → the replies
 *   the effects returned, sent to the broker (`replies`; see CommandIntake).
 * A single message is claimed with its effect's writes instead, after the effect, and the
 * transaction begins only when something needs it (transactionInFewTrips): a command that reads
 * and then writes is its reads and one statement (docs/decisions/one-round-trip-per-command.md).
 * A repeat then runs its effect and fails that statement, which writes nothing.
 * A single message (what the port hands over one at a time, and every message of a batch that
 * failed) is retried on a stream version conflict; a batch is not: anything that escapes it (a
 * conflict, an outage, a refusal of a fact) rolls the whole batch back and throws, and the
 * messaging port then hands the same messages over one at a time, each under its error policy
 * (libs/shared/messaging, `ConsumeTopicInBatches`), so one bad message fails alone.
 */

/** A consumed message together with what the consumer read of it. */
export interface ReadMessage<Item> {
  envelope: MessageEnvelope;
  item: Item;
}

export interface MessageIntakeDefinition<Item> {
  /** The inbox consumer name: a message id it claimed before is skipped. Null when the effect is idempotent by itself (unique keys) and needs no inbox. */
  inbox: string | null;
  /**
   * What the message asks of this consumer, outside any transaction; null when nothing. Throws
   * PoisonMessageError for a message that can never succeed. Runs again when a failed batch is
   * retried message by message, so it must only read.
   */
  read: (envelope: MessageEnvelope) => Item | null | Promise<Item | null>;
  /**
   * The effect of the claimed messages, in the transaction, in the order given. It may return
   * replies to waiting callers: they are sent through `replies` once the transaction has
   * committed (nothing, if it rolls back).
   */
  apply: (manager: EntityManager, messages: ReadonlyArray<ReadMessage<Item>>) => Promise<void | readonly OutgoingMessage[]>;
  /**
   * Row-lock order: when given, the claimed messages are applied sorted by this key (stably, so
   * messages of one key keep their order). Concurrent batches then take their locks in one global
   * order and cannot deadlock each other.
   */
  lockKeyOf?: (item: Item) => string;
  /**
   * Names who refuses a fact: a DomainError out of `apply` for a single message becomes a
   * PoisonMessageError naming it (a refusal of something that already happened does not change
   * on retry; it goes to the dead letters, nothing of it written). Absent: a DomainError is
   * treated like any other error.
   */
  refusedBy?: string;
  /** After the commit, with the messages it covered (metrics, nudging a worker, fault injection). */
  afterCommit?: (messages: ReadonlyArray<ReadMessage<Item>>) => void;
  /**
   * Where the replies `apply` returns go, after the commit and `afterCommit`: straight to the
   * broker (ReplySender), not through the outbox (see CommandIntake for why). Needed only by an
   * intake whose `apply` returns replies.
   */
  replies?: ReplyPort;
  /**
   * Only with `inbox: null`: `apply` sends one statement, atomic by itself, so no transaction is
   * opened around it (its BEGIN and COMMIT would be two more round trips). Nothing in it may
   * write to the outbox.
   */
  singleStatement?: boolean;
}

export class MessageIntake<Item> {
  private readonly replySender: ReplySender | null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly definition: MessageIntakeDefinition<Item>,
  ) {
    this.replySender = definition.replies ? new ReplySender(definition.replies) : null;
  }

  /** One message: retried as a whole on a version conflict. */
  async handle(envelope: MessageEnvelope): Promise<void> {
    const read = await this.readAll([envelope]);
    if (read.length === 0) return;
    let outcome: Applied<Item>;
    try {
      outcome = await retryOnConflict(DEFAULT_CONFLICT_RETRY_POLICY, () => this.inTransaction((manager) => this.applyInTransaction(manager, read, true)));
    } catch (error) {
      // A repeat's effect may fail before its claim does (a decider refusing what it already did).
      if (!(await this.isRepeat(envelope, error))) throw error;
      outcome = { committed: [], toSend: [] };
    }
    this.afterCommit(outcome);
  }

  private afterCommit({ committed, toSend }: Applied<Item>): void {
    this.definition.afterCommit?.(committed);
    if (toSend.length === 0) return;
    if (!this.replySender) throw new Error(`intake ${this.definition.inbox}: apply returned replies, but the definition names no replies port`);
    this.replySender.send(toSend);
  }

  private async isRepeat(envelope: MessageEnvelope, error: unknown): Promise<boolean> {
    const { inbox } = this.definition;
    if (inbox === null) return false;
    if (error instanceof MessageAlreadyClaimedError) return true;
    // Unanswerable (the database is what failed): the error goes on as it is.
    return isInboxMessageClaimed(this.dataSource.manager, inbox, envelope.id).catch(() => false);
  }

  /** Consecutive messages of one partition in one transaction; see the module comment for what a failure does. */
  async handleAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    if (envelopes.length === 1) return this.handle(envelopes[0]);
    const read = await this.readAll(envelopes);
    if (read.length === 0) return;
    this.afterCommit(await this.inTransaction((manager) => this.applyInTransaction(manager, read, false)));
  }

  private inTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const { inbox, singleStatement } = this.definition;
    if (!singleStatement) return transactionInFewTrips(this.dataSource, work);
    if (inbox !== null) throw new Error(`intake ${inbox}: an inbox claim and an effect are two statements, they need a transaction`);
    return work(this.dataSource.manager);
  }

  private async readAll(envelopes: readonly MessageEnvelope[]): Promise<Array<ReadMessage<Item>>> {
    const read: Array<ReadMessage<Item>> = [];
    for (const envelope of envelopes) {
      const item = await this.definition.read(envelope);
      if (item !== null) read.push({ envelope, item });
    }
    return read;
  }

  private async applyInTransaction(manager: EntityManager, read: ReadonlyArray<ReadMessage<Item>>, single: boolean): Promise<Applied<Item>> {
    const { inbox, lockKeyOf, refusedBy } = this.definition;
    // One message is claimed with its effect's writes; a batch first, in one statement, so each repeat in it is skipped alone.
    const claimWithWrites = single && inbox !== null;
    const claimed =
      inbox === null || claimWithWrites
        ? null
        : await claimInboxMessages(
            manager,
            inbox,
            read.map(({ envelope }) => envelope.id),
          );
    // Each claimed id once: a message the relay published twice may sit twice in one batch.
    const fresh = claimed === null ? read : read.filter(({ envelope }) => claimed.delete(envelope.id));
    if (fresh.length === 0) return { committed: fresh, toSend: [] };
    const ordered = lockKeyOf ? stableSortBy(fresh, ({ item }) => lockKeyOf(item)) : fresh;
    try {
      const toSend = this.definition.singleStatement
        ? await this.definition.apply(manager, ordered)
        : // The effects' event appends, projections and outbox rows go as one statement at the end.
          await withOneWriteStatement(manager, async () => {
            const replies = await withOneOutboxWrite(manager, () => this.definition.apply(manager, ordered));
            if (claimWithWrites) await claimInboxMessageWithWrites(manager, inbox, ordered[0].envelope.id);
            return replies;
          });
      return { committed: fresh, toSend: toSend ?? [] };
    } catch (error) {
      if (single && refusedBy !== undefined && error instanceof DomainError) {
        const { envelope } = ordered[0];
        throw new PoisonMessageError(`${envelope.type} ${envelope.id} refused by ${refusedBy}: ${error.code} ${error.message}`);
      }
      throw error;
    }
  }
}

/** What a transaction of the intake did: the messages it applied, and the replies to send once it commits. */
interface Applied<Item> {
  committed: ReadonlyArray<ReadMessage<Item>>;
  toSend: readonly OutgoingMessage[];
}

/** Array.prototype.sort is stable (ES2019), so equal keys keep their order. */
function stableSortBy<T>(values: readonly T[], keyOf: (value: T) => string): T[] {
  const keyed = values.map((value) => ({ value, key: keyOf(value) }));
  return keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(({ value }) => value);
}

/** The request class (class-validator) a command type's payload must satisfy; null when `prepare` checks it by hand. */
export type PayloadClass = (new () => object) | null;

/** What a command topic accepts: one schema version and, by type, the payload's class. */
export interface CommandContract<Type extends string> {
  schemaVersion: number;
  payloads: Readonly<Record<Type, PayloadClass>>;
}

const payloadPipe = new RequestPipe();

/**
 * A command of an unknown type or version, or whose payload fails its request class, can never
 * succeed: it is poison (dead-lettered at once), not a business rejection.
 */
export async function assertValidCommand<Type extends string>(envelope: MessageEnvelope, contract: CommandContract<Type>): Promise<Type> {
  if (envelope.schemaVersion !== contract.schemaVersion)
    throw new PoisonMessageError(`unsupported schema version ${envelope.schemaVersion} of ${envelope.type}`);
  if (!Object.hasOwn(contract.payloads, envelope.type)) throw new PoisonMessageError(`unknown command type ${envelope.type}`);
  const type = envelope.type as Type;
  const payloadClass = contract.payloads[type];
  if (!payloadClass) return type;
  try {
    await payloadPipe.validateAs(payloadClass, envelope.data);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    throw new PoisonMessageError(`malformed ${envelope.type} payload: ${error.details.map((detail) => `${detail.field} ${detail.issue}`).join('; ')}`);
  }
  return type;
}

/** A command as the intake hands it to `run`: validated, and prepared (or refused while preparing). */
export interface ReadCommand<Prepared> {
  prepared: Prepared | DomainError;
}

export interface CommandIntakeDefinition<Type extends string, Prepared> {
  /** The inbox consumer name. */
  inbox: string;
  contract: CommandContract<Type>;
  /** The replies' envelope type and source. */
  reply: { type: string; source: string };
  /**
   * Outside any transaction, before it: what must not hold a transaction open (a question to the
   * network). A DomainError thrown here is the command's rejection. Runs again when a failed batch
   * is retried one by one, so it must not change anything that matters.
   */
  prepare?: (envelope: MessageEnvelope, type: Type) => Promise<Prepared>;
  /**
   * Runs the command in the transaction. Returns the accepted reply's fields (`outcome:
   * 'accepted'` is added), or null when this command answers nobody here. A DomainError is a
   * business rejection: it becomes a `rejected` reply, in the same transaction, batch or not.
   */
  run: (manager: EntityManager, envelope: MessageEnvelope, prepared: Prepared) => Promise<object | null>;
  /** In the transaction after a rejection, before its reply (e.g. deleting what the command brought along). */
  onRejected?: (manager: EntityManager, envelope: MessageEnvelope, error: DomainError) => Promise<void>;
  /** After the commit, with the commands it covered (fault injection); before their replies are sent. */
  afterCommit?: (envelopes: MessageEnvelope[]) => void;
  /** Where the replies go once their transaction has committed: the messaging port (see ReplySender). */
  replies: ReplyPort;
  /**
   * The lane a command runs in when it comes in a batch. Lanes run side by side in the batch's
   * one transaction, each in the order its commands came, so a command that waits on the network
   * (a payout placing its ledger hold over HTTP) no longer holds up the commands of other lanes
   * behind it. Give it only when commands of different lanes never read state that another lane
   * then writes: the transaction's row locks do not keep its own lanes apart. Two lanes that meet
   * on one stream anyway are caught by the event store's version check, which fails the batch,
   * and the port then runs its commands one by one. Absent: one lane, the batch in order.
   */
  laneOf?: (envelope: MessageEnvelope) => string;
}

/**
 * The lane of a command on a merchant's object (subject `merchant:<id>/…`): the merchant, so
 * everything one merchant asks runs in order (its balance, limits and totals stay one writer's
 * in the batch). Any other subject (a payer's page, by its token) is a lane of its own.
 */
export function merchantLaneOf(envelope: MessageEnvelope): string {
  const merchant = /^merchant:[^/]+/.exec(envelope.subject);
  return merchant ? merchant[0] : envelope.subject;
}

/**
 * The command side of the intake: validate the envelope (poison otherwise), claim it, run it,
 * reply once it has committed. A business rejection is a reply like any outcome and stays in the
 * batch; anything else rolls the batch back (see MessageIntake).
 *
 * Replies go straight to the broker after the commit, not through the outbox
 * (docs/decisions/command-replies-after-commit.md). A reply is of use only to the gateway request
 * still waiting for it, and for seconds: the outbox kept it through a crash, but it came after the
 * gateway had answered 503, and was dropped there. It cost a row written, read and deleted per
 * command (a fifth of a pay-in create's WAL) and the relay's wake-up on the answer's path. A reply
 * lost with the process is a 503 at the gateway's timeout, and the merchant's retry (the same
 * order_id or idempotency key) is answered from what committed.
 */
export class CommandIntake<Type extends string, Prepared = undefined> {
  private readonly intake: MessageIntake<ReadCommand<Prepared>>;

  constructor(dataSource: DataSource, definition: CommandIntakeDefinition<Type, Prepared>) {
    const replyTo = async (manager: EntityManager, envelope: MessageEnvelope, prepared: Prepared | DomainError): Promise<OutgoingMessage | null> => {
      let data: object | null;
      try {
        if (prepared instanceof DomainError) throw prepared;
        const accepted = await definition.run(manager, envelope, prepared);
        data = accepted && { outcome: 'accepted', ...accepted };
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        await definition.onRejected?.(manager, envelope, error);
        data = { outcome: 'rejected', error: error.toDescription() };
      }
      return data && commandReplyMessage(envelope, { ...definition.reply, data });
    };
    this.intake = new MessageIntake<ReadCommand<Prepared>>(dataSource, {
      inbox: definition.inbox,
      read: async (envelope) => {
        const type = await assertValidCommand(envelope, definition.contract);
        if (!definition.prepare) return { prepared: undefined as Prepared };
        try {
          return { prepared: await definition.prepare(envelope, type) };
        } catch (error) {
          if (error instanceof DomainError) return { prepared: error };
          throw error;
        }
      },
      apply: async (manager, commands) => {
        // Each reply keeps its command's place in the batch, whichever lane ran it.
        const replies: Array<OutgoingMessage | null> = [];
        const lanes = Map.groupBy(commands.entries(), ([, { envelope }]) => definition.laneOf?.(envelope) ?? '');
        // Every lane settles before the batch does: a failed lane's error is thrown only once no
        // other lane has a statement left to send on the transaction that is about to roll back.
        const settled = await Promise.allSettled(
          [...lanes.values()].map(async (lane) => {
            for (const [index, { envelope, item }] of lane) replies[index] = await replyTo(manager, envelope, item.prepared);
          }),
        );
        const failed = settled.find((outcome) => outcome.status === 'rejected');
        if (failed) throw failed.reason;
        return replies.filter((reply): reply is OutgoingMessage => reply !== null);
      },
      afterCommit: definition.afterCommit && ((commands) => definition.afterCommit?.(commands.map(({ envelope }) => envelope))),
      replies: definition.replies,
    });
  }

  handle(envelope: MessageEnvelope): Promise<void> {
    return this.intake.handle(envelope);
  }

  handleAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    return this.intake.handleAll(envelopes);
  }
}
