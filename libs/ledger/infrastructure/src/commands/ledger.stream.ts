import {
  assertBalanced,
  LEDGER_EVENT_SCHEMAS,
  ledgerDecider,
  toLedgerStreamId,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerState,
} from '@mp/ledger-domain';
import { handleCommand, type Causation, type CommandResult, type HandleCommandOptions } from '@mp/shared-command-handling';
import { eventCodec } from '@mp/shared-decider';
import { loadLedgerState, projectLedgerEvents } from '../persistence/ledger.projection';

export const ledgerEvents = eventCodec(LEDGER_EVENT_SCHEMAS);

export type LedgerCommandResult = CommandResult<LedgerState, LedgerEvent>;

/**
 * Runs one command on one ledger (merchant × currency) on the shared command core. The state
 * comes from the locked balances row and the one hold, credit or adjustment row the command
 * reads, never from a replay of the stream, so a command costs the same at the first event
 * and the millionth (libs/ledger/README.md). The books of the events must balance before they
 * are appended, and the projections move in the same transaction. A DomainError leaves
 * nothing written.
 *
 * The row lock, not optimistic retries, orders concurrent writers: a hundred payouts racing
 * for one merchant's money queue on it and each decides on the state the previous one
 * committed, so exactly as many as the balance covers succeed.
 */
export function handleLedgerCommand(
  transaction: HandleCommandOptions<LedgerState, LedgerEvent>['transaction'],
  merchantId: string,
  currency: string,
  command: LedgerCommand,
  causation: Causation,
): Promise<LedgerCommandResult> {
  return handleCommand(ledgerDecider(merchantId, currency), toLedgerStreamId(merchantId, currency), command, {
    transaction,
    codec: ledgerEvents,
    loadState: (manager) => loadLedgerState(manager, merchantId, currency, command),
    envelope: { source: 'ledger', subject: `merchant:${merchantId}/ledger:${currency}`, causation },
    beforeAppend: async (_manager, decided) => assertBalanced(decided.events),
    afterAppend: projectLedgerEvents,
  });
}
