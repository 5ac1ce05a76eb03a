import { WITHDRAWAL_COMMAND_SCHEMA_VERSION, WITHDRAWAL_COMMAND_TYPES, type WithdrawalCommandType } from '@mp/contracts-withdrawals';
import { commandRegistry } from '@mp/shared-command-handling';
import { reconcileWithdrawal } from './reconcile-withdrawal';
import { requestWithdrawal } from './request-withdrawal';
import { resolveWithdrawal } from './resolve-withdrawal';
import type { ResolvedWithdrawalCommand, WithdrawalCommandContext } from './withdrawal-wire-command';

/** `withdrawals.commands`: each wire type → its file. A type without a file, or a file twice, does not compile or boot. */
export const WITHDRAWAL_COMMANDS = commandRegistry<WithdrawalCommandType, WithdrawalCommandContext, ResolvedWithdrawalCommand>(
  WITHDRAWAL_COMMAND_SCHEMA_VERSION,
  WITHDRAWAL_COMMAND_TYPES,
  {
    RequestWithdrawal: requestWithdrawal,
    ResolveWithdrawal: resolveWithdrawal,
    ReconcileWithdrawal: reconcileWithdrawal,
  },
);
