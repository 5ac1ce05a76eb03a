import { Injectable } from '@nestjs/common';
import { assertBalanced, decide, evolve, foldLedger, toLedgerStreamId, type LedgerCommand, type LedgerEvent, type LedgerState } from '@mp/ledger-domain';
import { appendToStream, createEnvelope, readStream, type MessageEnvelope } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';
import { lockLedger, projectLedgerEvents } from '../persistence/ledger.projection';

const SOURCE = 'ledger';
export const LEDGER_EVENT_SCHEMA_VERSION = 1;

export interface Causation {
  /** The id of the message or request that caused the command. */
  id: string;
  correlationId: string;
}

export interface LedgerExecution {
  /** The ledger after the command (unchanged when it was a repeat). */
  state: LedgerState;
  /** Empty when the command had already been applied. */
  events: LedgerEvent[];
  version: number;
}

/**
 * Runs one command against one ledger (merchant × currency) inside the caller's transaction:
 * lock the ledger, read its stream, decide, check the books balance, append at the expected
 * version and update the projections. A DomainError leaves nothing written.
 *
 * The lock (not optimistic retries) orders concurrent writers: a hundred payouts racing for
 * one merchant's money queue on the row lock and each decides on the state the previous one
 * committed, so exactly as many as the balance covers succeed.
 */
@Injectable()
export class LedgerExecutor {
  async execute(manager: EntityManager, merchantId: string, currency: string, command: LedgerCommand, causation: Causation): Promise<LedgerExecution> {
    const locked = await lockLedger(manager, merchantId, currency);
    const streamId = toLedgerStreamId(merchantId, currency);
    const stream = await readStream(manager, streamId);
    if (stream.version !== locked.stream_version) {
      throw new Error(`the balances of ${streamId} are at version ${locked.stream_version} but the stream is at ${stream.version}; run the ledger auditor`);
    }
    const state = foldLedger(merchantId, currency, stream.events.map(toLedgerEvent));
    const events = decide(command, state);
    if (events.length === 0) return { state, events, version: stream.version };

    assertBalanced(events);
    const nextState = events.reduce(evolve, state);
    const envelopes = events.map((event) =>
      createEnvelope({
        type: event.type,
        schemaVersion: LEDGER_EVENT_SCHEMA_VERSION,
        source: SOURCE,
        subject: `merchant:${merchantId}/ledger:${currency}`,
        data: event.data,
        correlationId: causation.correlationId,
        causationId: causation.id,
      }),
    );
    const version = await appendToStream(manager, streamId, stream.version, envelopes);
    await projectLedgerEvents(manager, { merchantId, currency, stateBefore: state, versionBefore: stream.version, events, envelopes });
    return { state: nextState, events, version };
  }
}

export function toLedgerEvent(envelope: MessageEnvelope): LedgerEvent {
  return { type: envelope.type, data: envelope.data } as LedgerEvent;
}
