import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import {
  BACKOFFICE_CREDENTIAL_ID_PATTERN,
  BackofficeAuditStore,
  BackofficeCredentialStore,
  MerchantCredentialStore,
  type BackofficePrincipal,
} from '@mp/access-infrastructure';
import { MerchantIdParam, PathIdPipe } from '@mp/shared-nest-http';
import type { Clock } from '@mp/shared-util-clock';
import { DomainError } from '@mp/shared-util-errors';
import {
  IsPlainText,
  IsWholeNumberBetween,
  type JsonNumberLiteral,
  MatchesPattern,
  MERCHANT_ID_PATTERN,
  RequestMessages,
  Trim,
} from '@mp/shared-util-validation';
import { IsBoolean, IsOptional } from 'class-validator';
import { CLOCK, GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { overlapMsOf, rotateApiSecret, RotateSecretBody } from '../merchant/secret-rotation';
import { BackofficeGuard, CurrentPrincipal, Roles, type BackofficeRequest } from './backoffice.guard';
import { issuedOrRefused, lifetimeExpiry, REQUESTED_LIFETIME_DAYS_MAX } from './credential-issuance';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';

const CredentialIdParam = new PathIdPipe(BACKOFFICE_CREDENTIAL_ID_PATTERN, 'NOT_FOUND', (id) => `No credential ${id}`);
const AUDIT_PAGE_MAX = 500;

@RequestMessages({ invalid: 'The status change is not valid' })
class StatusChangeBody {
  @ApiProperty({ description: 'Why, for the audit trail and the operators who come next', minLength: 3, maxLength: 1000 })
  @Trim()
  @IsPlainText(1000)
  @MatchesPattern(/^[^]{3,}$/, 'must explain the change')
  reason!: string;
}

@RequestMessages({ invalid: 'The operator credential is not valid' })
class CreateOperatorCredentialBody {
  @ApiProperty({ maxLength: 200, example: 'Alice' })
  @Trim()
  @IsPlainText(200)
  name!: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: REQUESTED_LIFETIME_DAYS_MAX,
    nullable: true,
    description:
      'Days until the token stops working (default, also for null: OPERATOR_CREDENTIAL_LIFETIME_DAYS; at most OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS)',
  })
  @IsOptional()
  @IsWholeNumberBetween(1, REQUESTED_LIFETIME_DAYS_MAX, 'json')
  lifetime_days?: JsonNumberLiteral | null;

  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'Whether the new operator may issue operator credentials in turn' })
  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  may_issue_operator_credentials?: boolean;
}

@RequestMessages({ invalid: 'The filters are not valid', unknownField: 'is not a filter; use actor_credential_id, merchant_id, before, limit' })
class AuditQuery {
  @ApiPropertyOptional({ pattern: BACKOFFICE_CREDENTIAL_ID_PATTERN.source })
  @IsOptional()
  @MatchesPattern(BACKOFFICE_CREDENTIAL_ID_PATTERN, 'must be a credential id (cred_ and 24 hex digits)')
  actor_credential_id?: string;

  @ApiPropertyOptional({ pattern: MERCHANT_ID_PATTERN.source })
  @IsOptional()
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id (mch_ and 24 hex digits)')
  merchant_id?: string;

  @ApiPropertyOptional({ description: 'Entries older than this audit_id: the last audit_id of the previous page' })
  @IsOptional()
  @MatchesPattern(/^[1-9]\d{0,17}$/, 'must be an audit_id')
  before?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: AUDIT_PAGE_MAX, default: 100 })
  @IsOptional()
  @IsWholeNumberBetween(1, AUDIT_PAGE_MAX, 'query')
  limit?: string;
}

/** Operators' powers over access: merchant API secrets, suspension, operator credentials, the audit trail. */
@BackofficeApiDocs('Access')
@Controller('backoffice/v1')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class AccessOperatorController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    @Inject(BackofficeCredentialStore) private readonly credentials: BackofficeCredentialStore,
    @Inject(BackofficeAuditStore) private readonly audit: BackofficeAuditStore,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A new API secret, shown once; the previous one verifies for `overlap_hours` (default
   * API_SECRET_OVERLAP_HOURS). During a running overlap only `overlap_hours: 0` is accepted: it
   * ends both older secrets now (a leaked secret), anything else is 409.
   */
  @Post('merchants/:merchantId/api-secret/rotate')
  @ApiOperation({ operationId: 'rotateMerchantApiSecret', summary: "Rotate a merchant's API secret" })
  @ApiResponse({ status: 201, description: 'The new secret, shown once' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'SECRET_ROTATION_IN_PROGRESS')
  async rotateApiSecret(@Param('merchantId', MerchantIdParam) merchantId: string, @Body() body: RotateSecretBody): Promise<unknown> {
    const overlapMs = overlapMsOf(body, this.settings.apiSecretOverlapHours);
    return await rotateApiSecret(this.merchants, merchantId, overlapMs, this.clock.now(), { endOverlapNow: true });
  }

  /** The merchant's signed requests get 403 MERCHANT_SUSPENDED; payments already under way still settle and report. */
  @HttpCode(200)
  @Post('merchants/:merchantId/suspend')
  @ApiOperation({ operationId: 'suspendMerchant', summary: 'Suspend a merchant' })
  @ApiResponse({ status: 200, description: 'The merchant, suspended' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'MERCHANT_STATUS_CONFLICT')
  async suspend(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Body() body: StatusChangeBody,
  ): Promise<unknown> {
    return this.changeStatus(operator, merchantId, 'suspend', body.reason);
  }

  @HttpCode(200)
  @Post('merchants/:merchantId/reinstate')
  @ApiOperation({ operationId: 'reinstateMerchant', summary: 'Reinstate a suspended merchant' })
  @ApiResponse({ status: 200, description: 'The merchant, active' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'MERCHANT_STATUS_CONFLICT')
  async reinstate(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Body() body: StatusChangeBody,
  ): Promise<unknown> {
    return this.changeStatus(operator, merchantId, 'reinstate', body.reason);
  }

  /** Every operator credential, newest first, with its expiry and revocation; never a token. */
  @Get('operator-credentials')
  @ApiOperation({ operationId: 'listOperatorCredentials', summary: 'List operator credentials' })
  @ApiResponse({ status: 200, description: 'The credentials (never their tokens)' })
  async listOperatorCredentials(): Promise<unknown> {
    return { data: await this.credentials.list('operator', this.clock.now()) };
  }

  /**
   * A new operator (a person of their own, `operator_id`); the token is in this answer only.
   * Only an operator who may issue operator credentials can (403 FORBIDDEN otherwise): a second
   * identity is a second pair of eyes, so making one is a power of its own. The new operator
   * can never approve a request of the issuer's, nor of anyone up the issuer's chain. It lives
   * at most OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS, and an operator holds at most
   * OPERATOR_LIVE_CREDENTIALS_MAX live credentials he issued (403 LIVE_CREDENTIAL_LIMIT beyond).
   */
  @Post('operator-credentials')
  @ApiOperation({ operationId: 'createOperatorCredential', summary: 'Issue an operator credential (its token is in this answer only)' })
  @ApiResponse({ status: 201, description: 'The credential and its token' })
  @BackofficeApiErrorResponses('FORBIDDEN')
  async createOperatorCredential(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Body() body: CreateOperatorCredentialBody,
    @Req() request: BackofficeRequest,
  ): Promise<unknown> {
    if (!operator.mayIssueOperators) {
      throw new DomainError('FORBIDDEN', 'This operator may not issue operator credentials', [
        { field: 'operator', issue: 'ISSUING_NOT_ALLOWED: ask an operator who may issue operator credentials' },
      ]);
    }
    const now = this.clock.now();
    const limits = {
      defaultDays: this.settings.operatorCredentialLifetimeDays,
      maxDays: this.settings.operatorCredentialLifetimeMaxDays,
      setting: 'OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS',
    };
    const result = await this.credentials.issueOperator(body.name, {
      expiresAt: lifetimeExpiry(body.lifetime_days, limits, now),
      issuer: operator,
      mayIssueOperators: body.may_issue_operator_credentials === true,
      liveMax: this.settings.operatorLiveCredentialsMax,
      now,
    });
    const created = issuedOrRefused(result, request, operator, { limit: this.settings.operatorLiveCredentialsMax, holder: 'This operator' });
    return {
      credential_id: created.credentialId,
      operator_id: created.operatorId,
      role: created.role,
      name: created.name,
      may_issue_operator_credentials: created.mayIssueOperators,
      expires_at: created.expiresAt?.toISOString() ?? null,
      token: created.token,
    };
  }

  /** Ends a credential (operator or agent) at once; its token gets 401 CREDENTIAL_REVOKED from then on. */
  @HttpCode(200)
  @Post('operator-credentials/:credentialId/revoke')
  @ApiOperation({ operationId: 'revokeOperatorCredential', summary: 'Revoke an operator credential' })
  @ApiResponse({ status: 200, description: 'The credential, revoked' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async revoke(@CurrentPrincipal() operator: BackofficePrincipal, @Param('credentialId', CredentialIdParam) credentialId: string): Promise<unknown> {
    const result = await this.credentials.revoke(credentialId, operator.credentialId, this.clock.now());
    if (result.kind === 'not_found') throw new DomainError('NOT_FOUND', `No credential ${credentialId}`);
    return result.credential;
  }

  /** The back-office audit trail, newest first: `?actor_credential_id=&merchant_id=&before=&limit=`. */
  @Get('audit')
  @ApiOperation({ operationId: 'listBackofficeAudit', summary: 'The back-office audit trail, newest first' })
  @ApiResponse({ status: 200, description: 'A page of audit records' })
  async listAudit(@Query() query: AuditQuery): Promise<unknown> {
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    const data = await this.audit.list({ actorCredentialId: query.actor_credential_id, merchantId: query.merchant_id, beforeAuditId: query.before, limit });
    return { data, next_before: data.length === limit ? (data[data.length - 1]?.audit_id ?? null) : null };
  }

  private async changeStatus(operator: BackofficePrincipal, merchantId: string, action: 'suspend' | 'reinstate', reason: string): Promise<unknown> {
    const result = await this.merchants.changeStatus(merchantId, action, { actor: operator.credentialId, reason, now: this.clock.now() });
    if (result.kind === 'not_found') throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
    if (result.kind === 'refused')
      throw new DomainError(result.code, `The merchant is already ${result.status}`, [{ field: 'status', issue: `is already ${result.status}` }]);
    return result.profile;
  }
}
