import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DISPUTE_STATUSES, type DisputeStatus } from '@mp/contracts-disputes';
import { ListPageResponse } from '../openapi/list-page.response';
import { ReceiptFileResponse } from '../openapi/receipt-file.response';
import { METADATA_RESPONSE_PROPERTY } from '../openapi/request-schemas';

export class DisputeReviewResponse {
  @ApiProperty({ enum: ['ACCEPTED', 'REJECTED'], example: 'ACCEPTED' })
  decision!: 'ACCEPTED' | 'REJECTED';

  @ApiProperty({ type: 'string', nullable: true, example: null })
  reason!: string | null;

  @ApiProperty({ type: 'number', nullable: true, description: 'What the order settled for when accepted; null when rejected', example: 1500.5 })
  settled_amount!: number | null;

  @ApiProperty({ format: 'date-time', example: '2026-01-01T13:00:00.000Z' })
  reviewed_at!: string;
}

/** The dispute state object (endpoints 14 and 16, list items of 15, dispute callbacks). */
export class DisputeResponse {
  @ApiProperty({ example: 'dsp_0123456789abcdef01234567' })
  dispute_id!: string;

  @ApiProperty({ description: 'The disputed incoming order', example: 'A-1' })
  order_id!: string;

  @ApiProperty({ enum: DISPUTE_STATUSES, example: 'OPEN' })
  status!: DisputeStatus;

  @ApiProperty({ type: 'number', nullable: true, description: 'The amount the payer says was paid; null for the order amount', example: 1500.5 })
  amount!: number | null;

  @ApiProperty({ example: 'RUB' })
  currency!: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'The payer paid, the order expired' })
  comment!: string | null;

  @ApiProperty({ type: ReceiptFileResponse, nullable: true })
  receipt!: ReceiptFileResponse | null;

  @ApiProperty({ format: 'date-time', example: '2026-01-01T12:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-01T12:00:00.000Z' })
  updated_at!: string;

  @ApiProperty({ ...METADATA_RESPONSE_PROPERTY, description: 'Your own reference data as sent on open, or on the reopen that last sent some; {} when none' })
  metadata!: Record<string, string>;

  @ApiProperty({ type: DisputeReviewResponse, nullable: true, description: 'Null while OPEN' })
  review!: DisputeReviewResponse | null;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the review must be finished; null once reviewed',
    example: '2026-01-03T12:00:00.000Z',
  })
  review_deadline?: string | null;
}

/** Endpoint 15: newest first. */
export class DisputeListResponse extends ListPageResponse {
  @ApiProperty({ type: [DisputeResponse] })
  data!: DisputeResponse[];
}
