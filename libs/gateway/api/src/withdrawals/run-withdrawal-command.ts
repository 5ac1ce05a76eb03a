import {
  withdrawalKey,
  type WithdrawalCommandDataByType,
  type WithdrawalCommandReplyData,
  type WithdrawalCommandType,
  type WithdrawalView,
} from '@mp/contracts-withdrawals';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { WITHDRAWALS_COMMAND_ROUTE, type ServiceCommandBus } from '../commands/service-command.bus';

type AcceptedWithdrawalCommand = Extract<WithdrawalCommandReplyData, { outcome: 'accepted' }>;

/** Sends a command to the withdrawals service keyed by its withdrawal and answers with the withdrawal, or throws the refusal. */
export async function runWithdrawalCommand<T extends WithdrawalCommandType>(
  commandBus: ServiceCommandBus,
  type: T,
  data: WithdrawalCommandDataByType[T],
  request: GatewayRequest,
): Promise<WithdrawalView> {
  return (await sendWithdrawalCommand(commandBus, type, data, request)).withdrawal;
}

/** The same, answering with the whole accepted reply (a reconciliation's carries its evidence). */
export async function sendWithdrawalCommand<T extends WithdrawalCommandType>(
  commandBus: ServiceCommandBus,
  type: T,
  data: WithdrawalCommandDataByType[T],
  request: GatewayRequest,
): Promise<AcceptedWithdrawalCommand> {
  return commandBus.run<WithdrawalCommandReplyData>(WITHDRAWALS_COMMAND_ROUTE, type, data, {
    key: withdrawalKey(data.merchantId, data.orderId),
    subject: `merchant:${data.merchantId}/withdrawal:${data.orderId}`,
    correlationId: request.requestId ?? 'unknown',
  });
}
