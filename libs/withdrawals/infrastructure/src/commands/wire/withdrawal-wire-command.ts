import type { ReconcileWithdrawalData, WithdrawalCommandDataByType, WithdrawalCommandType } from '@mp/contracts-withdrawals';
import type { WireCommand } from '@mp/shared-command-handling';
import { INTERNAL_ID_PATTERN, IsOrderId, MatchesPattern, MERCHANT_ID_PATTERN } from '@mp/shared-util-validation';
import type { WithdrawalAsset, WithdrawalCommand } from '@mp/withdrawals-domain';
import type { EntityManager } from 'typeorm';
import type { NetworkAdapter } from '../../sending/network-adapter.port';

/**
 * What every command of `withdrawals.commands` is, one file per wire type beside this one
 * (registered in withdrawal-commands.registry.ts): its payload class, and `resolve`, which reads
 * what the decider needs (or asks the network) and names the domain command (withdrawalDecider)
 * to run on which withdrawal. `resolve` runs before the transaction opens, so a question to the
 * network never holds one; the intake (withdrawal-command.intake.ts) then runs the command on the
 * withdrawal's stream and replies.
 *
 * A payload that fails its class can never succeed, whatever the state: it is a poison message,
 * not a business rejection (the gateway validated the merchant's or operator's input before
 * sending it). The asset, the address and the minimum are business rules: the decider answers them.
 */
export type WithdrawalWireCommand<Type extends WithdrawalCommandType> = WireCommand<
  Type,
  WithdrawalCommandDataByType[Type],
  WithdrawalCommandContext,
  ResolvedWithdrawalCommand
>;

/** What `resolve` is given: reads outside any transaction, the assets withdrawals serves, the network. */
export interface WithdrawalCommandContext {
  manager: EntityManager;
  now: Date;
  assets: readonly WithdrawalAsset[];
  network: NetworkAdapter;
}

export interface ResolvedWithdrawalCommand {
  merchantId: string;
  orderId: string;
  command: WithdrawalCommand;
}

/** The fields every withdrawal command carries. */
export class WithdrawalCommandPayload {
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id')
  merchantId!: string;

  @IsOrderId()
  orderId!: string;
}

/** An operator's action on a withdrawal: who acted is recorded with what it decided. */
export class OperatorActionPayload extends WithdrawalCommandPayload implements ReconcileWithdrawalData {
  @MatchesPattern(INTERNAL_ID_PATTERN, 'must name the operator')
  operatorId!: string;
}
