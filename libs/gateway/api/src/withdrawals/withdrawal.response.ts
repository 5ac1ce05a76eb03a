import { ApiProperty } from '@nestjs/swagger';
import { WITHDRAWAL_STATUSES, type WithdrawalStatusView } from '@mp/contracts-withdrawals';
import { AMOUNT_PROPERTY, ListPageResponse } from '../openapi/list-page.response';
import { METADATA_RESPONSE_PROPERTY } from '../openapi/request-schemas';

/** The withdrawal state object (endpoints 11 and 13, list items of 12, withdrawal callbacks). */
export class WithdrawalResponse {
  @ApiProperty({ example: 'W-1' })
  order_id!: string;

  @ApiProperty({ enum: WITHDRAWAL_STATUSES, example: 'PENDING' })
  status!: WithdrawalStatusView;

  @ApiProperty({ ...AMOUNT_PROPERTY, description: "In the balance asset's scale", example: 25 })
  amount!: number;

  @ApiProperty({ ...AMOUNT_PROPERTY, description: 'The network fee, frozen with the amount', example: 1 })
  network_fee!: number;

  @ApiProperty({ description: 'The asset code sent', example: 'USDT-TRC20' })
  currency!: string;

  @ApiProperty({ example: 'TRC20' })
  network!: string;

  @ApiProperty({ example: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE' })
  address!: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'Set once the network sent it', example: null })
  transaction_hash!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why it failed; null unless FAILED', example: null })
  failure_reason!: string | null;

  @ApiProperty(METADATA_RESPONSE_PROPERTY)
  metadata!: Record<string, string>;

  @ApiProperty({ format: 'date-time', example: '2026-01-01T12:00:00.000Z' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-01T12:00:00.000Z' })
  updated_at!: string;
}

/** Endpoint 12: newest first. */
export class WithdrawalListResponse extends ListPageResponse {
  @ApiProperty({ type: [WithdrawalResponse] })
  data!: WithdrawalResponse[];
}
