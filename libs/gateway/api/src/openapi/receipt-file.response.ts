import { ApiProperty } from '@nestjs/swagger';

/** A stored receipt file as merchants see it: payout receipts and a dispute's receipt alike. */
export class ReceiptFileResponse {
  @ApiProperty({ example: 'transfer.pdf' })
  file_name!: string;

  @ApiProperty({ enum: ['application/pdf', 'image/png', 'image/jpeg'], example: 'application/pdf' })
  content_type!: string;

  @ApiProperty({ type: 'integer', example: 48213 })
  size_bytes!: number;
}
