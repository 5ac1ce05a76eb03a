import { ApiProperty } from '@nestjs/swagger';

/** POST /backoffice/v1/merchants/:merchantId/test-credentials: the sandbox merchant, its secrets shown this once. */
export class TestCredentialsResponse {
  @ApiProperty({ description: 'The sandbox merchant: `test_` and the live merchant id; its x-api-key', example: 'test_mch_0123456789abcdef01234567' })
  merchant_id!: string;

  @ApiProperty({ description: 'The live merchant it belongs to', example: 'mch_0123456789abcdef01234567' })
  live_merchant_id!: string;

  @ApiProperty({ enum: ['test'], example: 'test' })
  mode!: 'test';

  @ApiProperty({ example: 'Demo shop (test)' })
  name!: string;

  @ApiProperty({ description: 'The sandbox API secret, shown in this answer only', example: 'sk_…' })
  api_secret!: string;

  @ApiProperty({ description: "The sandbox's own webhook secret (Standard Webhooks), shown in this answer only", example: 'whsec_…' })
  webhook_secret!: string;

  @ApiProperty({ description: "How many method catalog entries were copied from the live merchant's catalog", example: 4 })
  methods_copied!: number;
}
