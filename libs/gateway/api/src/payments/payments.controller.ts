import { Controller, Get, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { PAYMENT_COMMAND_TYPES, paymentOrderKey } from '@mp/contracts-payments';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyReply } from 'fastify';
import { CurrentMerchant, MerchantSignatureGuard, type AuthenticatedMerchant, type GatewayRequest } from '../auth/merchant-signature.guard';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { parseJsonObjectBody, stringifyResponse } from '../http/json-body';
import { ORDER_ID_PATTERN, toCreateIncomingPaymentData } from './create-incoming-payment.request';
import { PaymentCommandBus } from './payment-command.bus';
import { PaymentsReadClient } from './payments-read.client';

@Controller('v2/payments')
@UseGuards(MerchantSignatureGuard)
export class PaymentsController {
  constructor(
    private readonly commandBus: PaymentCommandBus,
    private readonly reads: PaymentsReadClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /** Endpoint 1. Every answer for one order_id is the same 201 with the same order (spec 4.3). */
  @Post('incoming')
  async createIncoming(@CurrentMerchant() merchant: AuthenticatedMerchant, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const data = toCreateIncomingPaymentData(merchant.merchantId, parseJsonObjectBody(request.body as Buffer | undefined), {
      allowHttpCallbackUrls: this.settings.allowHttpCallbackUrls,
    });
    const outcome = await this.commandBus.execute(PAYMENT_COMMAND_TYPES.createIncomingPayment, data, {
      key: paymentOrderKey(merchant.merchantId, data.orderId),
      subject: `merchant:${merchant.merchantId}/order:${data.orderId}`,
      correlationId: request.requestId ?? 'unknown',
    });
    if (outcome.outcome === 'rejected') throw DomainError.fromDescription(outcome.error);
    await reply.status(201).type('application/json').send(stringifyResponse(outcome.order));
  }

  /** Endpoint 3: searches both directions; another merchant's order is not found, like a missing one. */
  @Get('status/:orderId')
  async getStatus(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('orderId') orderId: string, @Res() reply: FastifyReply): Promise<void> {
    if (!ORDER_ID_PATTERN.test(orderId)) throw new DomainError('ORDER_NOT_FOUND', `No order ${orderId}`);
    const order = await this.reads.getOrder(merchant.merchantId, orderId);
    await reply.status(200).type('application/json').send(stringifyResponse(order));
  }
}
