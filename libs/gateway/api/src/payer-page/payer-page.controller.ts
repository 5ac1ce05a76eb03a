import { Controller, Get, Param, Res } from '@nestjs/common';
import type { PaymentOrderView } from '@mp/contracts-payments';
import type { FastifyReply } from 'fastify';
import { PaymentsReadClient } from '../payments/payments-read.client';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The payer page at `redirect_url`. Served by the gateway itself, with no third-party assets,
 * readable on a phone. Payment details and the "I have paid" flow arrive with payment agents.
 */
@Controller('pay')
export class PayerPageController {
  constructor(private readonly reads: PaymentsReadClient) {}

  @Get(':token')
  async show(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    const order = await this.reads.getPayerPage(token);
    await reply
      .status(200)
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(renderPayerPage(order));
  }
}

export function renderPayerPage(order: PaymentOrderView): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment ${escapeHtml(order.order_id)}</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; padding: 1.5rem; background: #f5f6f8; color: #1d2330; }
  main { max-width: 28rem; margin: 0 auto; background: #fff; border-radius: 12px; padding: 1.5rem; box-shadow: 0 1px 4px rgba(0,0,0,.08); }
  .amount { font-size: 2rem; font-weight: 600; margin: .5rem 0; }
  .status { display: inline-block; padding: .2rem .6rem; border-radius: 999px; background: #eef1f6; font-size: .9rem; }
</style>
</head>
<body>
<main>
  <h1>Payment</h1>
  <p class="amount" data-testid="amount">${escapeHtml(order.amount)} ${escapeHtml(order.currency)}</p>
  <p>Order <strong>${escapeHtml(order.order_id)}</strong></p>
  <p class="status" data-testid="status">${escapeHtml(order.status)}</p>
</main>
</body>
</html>`;
}
