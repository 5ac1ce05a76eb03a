import { DISPUTE_COMMAND_SCHEMA_VERSION, DISPUTE_COMMAND_TYPES, type DisputeCommandType } from '@mp/contracts-disputes';
import { commandRegistry } from '@mp/shared-command-handling';
import type { DisputeCommandContext, ResolvedDisputeCommand } from './dispute-wire-command';
import { openDispute } from './open-dispute';

/** `disputes.commands`: each wire type → its file. A type without a file, or a file twice, does not compile or boot. */
export const DISPUTE_COMMANDS = commandRegistry<DisputeCommandType, DisputeCommandContext, ResolvedDisputeCommand>(
  DISPUTE_COMMAND_SCHEMA_VERSION,
  DISPUTE_COMMAND_TYPES,
  {
    OpenDispute: openDispute,
  },
);
