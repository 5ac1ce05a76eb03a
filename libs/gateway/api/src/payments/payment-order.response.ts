import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PAYMENT_ORDER_STATUSES, type PaymentDirection, type PaymentOrderStatus, type PaymentOrderSubStatus } from '@mp/contracts-payments';
import { AMOUNT_PROPERTY, ListPageResponse } from '../openapi/list-page.response';
import { ReceiptFileResponse } from '../openapi/receipt-file.response';
import { METADATA_RESPONSE_PROPERTY } from '../openapi/request-schemas';

/** The order state object (endpoints 1 to 6, list items, payment callbacks): one shape everywhere. */
export class PaymentOrderResponse {
  @ApiProperty({ description: "The merchant's own order id", example: 'A-1' })
  order_id!: string;

  @ApiProperty({ enum: ['incoming', 'outgoing'], description: 'incoming: a pay-in; outgoing: a payout', example: 'incoming' })
  direction!: PaymentDirection;

  @ApiProperty({ enum: PAYMENT_ORDER_STATUSES, description: 'PENDING until one of the four final states', example: 'PENDING' })
  status!: PaymentOrderStatus;

  @ApiProperty({
    type: 'string',
    enum: ['awaiting_agent', 'agent_assigned', 'payer_reported_paid'],
    nullable: true,
    description: 'Progress of a PENDING order; null once it is final',
    example: 'awaiting_agent',
  })
  sub_status!: PaymentOrderSubStatus;

  @ApiProperty(AMOUNT_PROPERTY)
  amount!: number;

  @ApiProperty({ type: 'number', description: "The platform fee in the order's currency", example: 37.51 })
  fee!: number;

  @ApiProperty({ description: 'ISO 4217 code', example: 'RUB' })
  currency!: string;

  @ApiProperty({ description: 'ISO 3166-1 alpha-2 code', example: 'RU' })
  country!: string;

  @ApiProperty({ description: 'The payment method', example: 'card' })
  method!: string;

  @ApiProperty({ description: "Where the order's callbacks go", example: 'https://shop.example/cb' })
  callback_url!: string;

  @ApiPropertyOptional({ description: 'Incoming orders only: where to send the payer', example: 'https://pay.example/pay/3f9c…' })
  redirect_url?: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: "Incoming orders only: the order's return_url; null when it has none (the merchant profile's default_return_url applies)",
    example: 'https://shop.example/orders/A-1',
  })
  return_url?: string | null;

  @ApiPropertyOptional({ description: 'Outgoing orders only: the recipient account, masked to its last four characters', example: '•••• 1234' })
  account_number?: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why the order failed; null unless FAILED', example: null })
  failure_reason!: string | null;

  @ApiProperty(METADATA_RESPONSE_PROPERTY)
  metadata!: Record<string, string>;

  @ApiProperty({ format: 'date-time', description: 'When a PENDING order expires', example: '2026-01-01T12:30:00.000Z' })
  expires_at!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-01T12:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-01T12:00:00.000Z' })
  updated_at!: string;
}

/** Endpoints 4 and 5: newest first; list items equal state objects. */
export class PaymentOrderListResponse extends ListPageResponse {
  @ApiProperty({ type: [PaymentOrderResponse] })
  data!: PaymentOrderResponse[];
}

/** One transfer confirmation of a payout (endpoint 7). */
export class PayoutReceiptResponse extends ReceiptFileResponse {
  @ApiProperty({ example: 'rcp_0123456789abcdef01234567' })
  receipt_id!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-01T12:10:00.000Z' })
  uploaded_at!: string;

  @ApiProperty({ description: 'Signed GET of this path downloads the file', example: '/v2/payments/B-1/receipts/rcp_0123456789abcdef01234567' })
  download_path!: string;
}

export class PayoutReceiptListResponse {
  @ApiProperty({ type: [PayoutReceiptResponse] })
  data!: PayoutReceiptResponse[];
}
