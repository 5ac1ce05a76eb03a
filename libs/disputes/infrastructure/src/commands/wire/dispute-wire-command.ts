import type { DisputeCommandType, OpenDisputeCommandData } from '@mp/contracts-disputes';
import type { DisputeCommand } from '@mp/disputes-domain';
import type { WireCommand } from '@mp/shared-command-handling';
import type { EntityManager } from 'typeorm';

/**
 * What every command of `disputes.commands` is, one file per wire type beside this one
 * (registered in dispute-commands.registry.ts): its payload class, and `resolve`, which reads
 * what the decider needs and names the domain command (disputeDecider) to run on which order's
 * dispute. The intake (dispute-command.intake.ts) runs it on the dispute's stream. A payload
 * that fails its class can never succeed: it is a poison message, not a business rejection.
 */
export type DisputeWireCommand<Type extends DisputeCommandType> = WireCommand<
  Type,
  DisputeCommandDataByType[Type],
  DisputeCommandContext,
  ResolvedDisputeCommand
>;

/** The payload of each wire type. */
interface DisputeCommandDataByType {
  OpenDispute: OpenDisputeCommandData;
}

/** What `resolve` is given: the command's transaction, its clock reading, and the review window the open fixes. */
export interface DisputeCommandContext {
  manager: EntityManager;
  now: Date;
  reviewWindowHours: number;
}

/** Which order's dispute a command is about, and the domain command to run on it. */
export interface ResolvedDisputeCommand {
  merchantId: string;
  orderId: string;
  command: DisputeCommand;
}
