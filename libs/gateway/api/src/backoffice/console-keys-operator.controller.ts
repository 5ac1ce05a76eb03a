import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { CONSOLE_KEY_ID_PATTERN, CONSOLE_KEY_LIFETIME_DAYS_DEFAULT, ConsoleKeyStore, type BackofficePrincipal } from '@mp/access-infrastructure';
import { MerchantIdParam, PathIdPipe } from '@mp/shared-nest-http';
import type { Clock } from '@mp/shared-util-clock';
import { DomainError } from '@mp/shared-util-errors';
import { IsWholeNumberBetween, type JsonNumberLiteral, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { CLOCK } from '../gateway-settings';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';
import { BackofficeGuard, CurrentPrincipal, Roles } from './backoffice.guard';

const ConsoleKeyIdParam = new PathIdPipe(CONSOLE_KEY_ID_PATTERN, 'NOT_FOUND', (id) => `No console key ${id}`);
const CONSOLE_KEY_LIFETIME_DAYS_MAX = 366;

@RequestMessages({ invalid: 'The console key is not valid' })
class CreateConsoleKeyBody {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: CONSOLE_KEY_LIFETIME_DAYS_MAX,
    nullable: true,
    description: `Days until the key stops working (default, also for null: ${CONSOLE_KEY_LIFETIME_DAYS_DEFAULT})`,
  })
  @IsOptional()
  @IsWholeNumberBetween(1, CONSOLE_KEY_LIFETIME_DAYS_MAX, 'json')
  lifetime_days?: JsonNumberLiteral | null;
}

export class CreatedConsoleKeyResponse {
  @ApiProperty({ description: "The key's id, to list and revoke it", example: 'ckey_0123456789abcdef01234567' })
  key_id!: string;
  @ApiProperty({
    description: "The key itself: shown in this answer only, typed by the merchant on the console's sign-in page",
    example: 'mck_q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c',
  })
  console_key!: string;
  @ApiProperty({ example: 'mch_0123456789abcdef01234567' })
  merchant_id!: string;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ format: 'date-time' })
  expires_at!: string;
}

export class ConsoleKeyResponse {
  @ApiProperty({ example: 'ckey_0123456789abcdef01234567' })
  key_id!: string;
  @ApiProperty({ example: 'mch_0123456789abcdef01234567' })
  merchant_id!: string;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ nullable: true, description: 'The operator credential that issued it' })
  created_by!: string | null;
  @ApiProperty({ format: 'date-time' })
  expires_at!: string;
  @ApiProperty({ format: 'date-time', nullable: true })
  revoked_at!: string | null;
  @ApiProperty({ nullable: true })
  revoked_by!: string | null;
  @ApiProperty({ enum: ['active', 'expired', 'revoked'] })
  state!: string;
}

export class ConsoleKeyListResponse {
  @ApiProperty({ type: [ConsoleKeyResponse] })
  data!: ConsoleKeyResponse[];
}

/**
 * Merchant console keys: what a merchant's staff type to sign in to the console. A key opens the
 * console as that merchant and nothing else: it is no back-office token and no API secret.
 */
@BackofficeApiDocs('Console keys')
@Controller('backoffice/v1/merchants/:merchantId/console-keys')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class ConsoleKeysOperatorController {
  constructor(
    @Inject(ConsoleKeyStore) private readonly keys: ConsoleKeyStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post()
  @ApiOperation({ operationId: 'createConsoleKey', summary: 'Issue a merchant console key (the key is in this answer only)' })
  @ApiResponse({ status: 201, type: CreatedConsoleKeyResponse })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async create(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Body() body: CreateConsoleKeyBody,
  ): Promise<unknown> {
    const lifetimeDays = body.lifetime_days == null ? CONSOLE_KEY_LIFETIME_DAYS_DEFAULT : Number(body.lifetime_days.literal);
    const created = await this.keys.create(merchantId, { createdBy: operator.credentialId, now: this.clock.now(), lifetimeDays });
    if (!created) throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
    return created;
  }

  @Get()
  @ApiOperation({ operationId: 'listConsoleKeys', summary: "List a merchant's console keys (never the keys themselves)" })
  @ApiResponse({ status: 200, type: ConsoleKeyListResponse })
  async list(@Param('merchantId', MerchantIdParam) merchantId: string): Promise<unknown> {
    return { data: await this.keys.list(merchantId, this.clock.now()) };
  }

  /** Ends the key at once; the console sessions it opened end with it. */
  @HttpCode(200)
  @Post(':keyId/revoke')
  @ApiOperation({ operationId: 'revokeConsoleKey', summary: 'Revoke a merchant console key' })
  @ApiResponse({ status: 200, type: ConsoleKeyResponse })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async revoke(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('keyId', ConsoleKeyIdParam) keyId: string,
  ): Promise<unknown> {
    const result = await this.keys.revoke(merchantId, keyId, operator.credentialId, this.clock.now());
    if (result.kind === 'not_found') throw new DomainError('NOT_FOUND', `No console key ${keyId} for merchant ${merchantId}`);
    return result.key;
  }
}
