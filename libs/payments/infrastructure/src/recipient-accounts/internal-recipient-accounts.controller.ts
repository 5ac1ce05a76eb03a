import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import type { RecipientAccountRef } from '@mp/payments-domain';
import { AgentIdParam, MerchantIdParam, OrderIdParam, OrderMerchantIdParam } from '@mp/shared-nest-http';
import { requireActor, ServiceCaller, type VerifiedCaller } from '@mp/shared-service-auth';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource } from 'typeorm';
import { RecipientAccountVault, type AccountNumberReveal } from './recipient-account.vault';

/**
 * Recipient accounts for the gateway: stored before a payout command is sent (the command then
 * carries only the reference), revealed to the agent a payout is assigned to, and the reveals
 * listed for operators. The gateway authenticated the caller and its role; a reveal also carries
 * the agent in the gateway's service token.
 */
@Controller('internal')
export class InternalRecipientAccountsController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly vault: RecipientAccountVault,
  ) {}

  @Post('merchants/:merchantId/payout-recipient-accounts')
  @HttpCode(201)
  async store(@Param('merchantId', MerchantIdParam) merchantId: string, @Body() body: { account_number?: unknown } | undefined): Promise<RecipientAccountRef> {
    const accountNumber = body?.account_number;
    if (typeof accountNumber !== 'string' || accountNumber.length < 1 || accountNumber.length > 64) {
      throw new DomainError('VALIDATION_ERROR', 'account_number is required', [{ field: 'account_number', issue: 'must be 1 to 64 characters' }]);
    }
    return this.vault.store(this.dataSource.manager, merchantId, accountNumber);
  }

  @Post('agents/:agentId/orders/:merchantId/:orderId/account-number-reveals')
  @HttpCode(200)
  reveal(
    @Param('agentId', AgentIdParam) agentId: string,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @ServiceCaller() caller?: VerifiedCaller,
  ): Promise<{ account_number: string; revealed_at: string }> {
    // Only the agent the gateway's service token names reveals, and only as itself.
    requireActor(caller, ['agent'], { id: agentId });
    return this.vault.reveal(this.dataSource.manager, agentId, merchantId, orderId);
  }

  /** `?merchant_id=&order_id=&agent_id=&limit=` (1 to 500, default 100), newest first. */
  @Get('account-number-reveals')
  async listReveals(@Query() query: Record<string, string>): Promise<{ data: AccountNumberReveal[] }> {
    const limit = query['limit'] === undefined ? 100 : Number(query['limit']);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      throw new DomainError('VALIDATION_ERROR', 'limit must be 1 to 500', [{ field: 'limit', issue: 'must be an integer from 1 to 500' }]);
    const data = await this.vault.listReveals(this.dataSource.manager, {
      merchantId: query['merchant_id'] || undefined,
      orderId: query['order_id'] || undefined,
      agentId: query['agent_id'] || undefined,
      limit,
    });
    return { data };
  }
}
