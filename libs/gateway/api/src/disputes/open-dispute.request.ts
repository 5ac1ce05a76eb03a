import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DISPUTE_COMMENT_MAX_LENGTH, DISPUTE_RECEIPT_BYTES_MAX, DisputeReceiptDto, OpenDisputeRequestDto } from '@mp/contracts-disputes';
import { ORDER_ID_PATTERN, type JsonNumberLiteral } from '@mp/shared-util-validation';
import { METADATA_REQUEST_DESCRIPTION, METADATA_SCHEMA } from '../openapi/request-schemas';

/** The receipt of endpoint 14 as the OpenAPI description shows it; the rules are the contract's DisputeReceiptDto. */
export class OpenDisputeReceiptBody extends DisputeReceiptDto {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'transfer.pdf' })
  override file_name!: string;

  @ApiProperty({
    enum: ['application/pdf', 'image/png', 'image/jpeg'],
    description: 'Must be what the file is (checked by its first bytes)',
    example: 'application/pdf',
  })
  override content_type!: string;

  @ApiProperty({ format: 'byte', description: `The file as base64; at most ${DISPUTE_RECEIPT_BYTES_MAX / 1024 / 1024} MB decoded`, example: 'JVBERi0xLjQK' })
  override content_base64!: string;
}

/** Endpoint 14's body: the contract's OpenDisputeRequestDto (its rules), with its OpenAPI description. */
export class OpenDisputeBody extends OpenDisputeRequestDto {
  @ApiProperty({
    description:
      'The incoming order in dispute: one a payment agent is already assigned to, created less than a month ago, without an open or accepted dispute (400 PAYMENT_REJECTED otherwise; 404 ORDER_NOT_FOUND for a payout or an unknown order)',
    pattern: ORDER_ID_PATTERN.source,
    example: 'A-1001',
  })
  override order_id!: string;

  @ApiPropertyOptional({
    type: 'number',
    minimum: 0,
    exclusiveMinimum: true,
    description: "What the payer paid, when not the order amount: a positive JSON number in the order's currency, with at most its decimals",
    example: 1500.5,
  })
  override amount?: JsonNumberLiteral;

  @ApiPropertyOptional({ maxLength: DISPUTE_COMMENT_MAX_LENGTH, description: 'Plain text for the reviewer', example: 'The payer paid, the order expired' })
  override comment?: string;

  @ApiPropertyOptional({ type: OpenDisputeReceiptBody, description: 'A transfer confirmation: PDF, PNG or JPEG' })
  override receipt?: OpenDisputeReceiptBody;

  @ApiPropertyOptional({
    ...METADATA_SCHEMA,
    description: `${METADATA_REQUEST_DESCRIPTION} A reopen that sends metadata replaces the dispute's; one that sends none keeps it.`,
  })
  override metadata?: Record<string, string>;
}
