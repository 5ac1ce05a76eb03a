import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { BackofficeCredentialStore, type BackofficePrincipal } from '@mp/access-infrastructure';
import { PathIdPipe } from '@mp/shared-nest-http';
import {
  INTERNAL_ID_PATTERN,
  IsOneOf,
  IsPlainText,
  IsWholeNumberBetween,
  MatchesPattern,
  PLAIN_TEXT_PATTERN,
  RequestMessages,
  Trim,
} from '@mp/shared-util-validation';
import { DomainError } from '@mp/shared-util-errors';
import { IsOptional } from 'class-validator';
import { LedgerReadClient } from '../merchant/ledger-read.client';
import { actingOperatorId } from './acting-operator';
import { BackofficeGuard, CurrentPrincipal, Roles } from './backoffice.guard';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';

const APPROVAL_ID_PATTERN = /^apr_[0-9a-f-]{36}$/;

@RequestMessages({ invalid: 'The query is not valid', unknownField: 'is not a filter here; use status, merchant_id, limit' })
class ApprovalsQuery {
  @ApiPropertyOptional({ enum: ['pending', 'approved', 'rejected', 'expired'], default: 'pending' })
  @IsOptional()
  @IsOneOf(['pending', 'approved', 'rejected', 'expired'], 'must be pending, approved, rejected or expired')
  status?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @MatchesPattern(/^[A-Za-z0-9._:-]{1,64}$/, 'must be a merchant id')
  merchant_id?: string;

  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 200 })
  @IsOptional()
  @IsWholeNumberBetween(1, 200, 'query')
  limit?: string;
}

@RequestMessages({ invalid: 'The decision is not valid' })
class RejectionBody {
  @ApiProperty({
    description: 'Why, for the audit trail: plain text of at least 3 characters besides leading and trailing white space',
    minLength: 3,
    maxLength: 1000,
    pattern: PLAIN_TEXT_PATTERN.source,
  })
  @Trim()
  @IsPlainText(1000)
  @MatchesPattern(/^[^]{3,}$/, 'must explain the rejection')
  reason!: string;
}

/** An approval id in a path; one that cannot be an id is not found (404), never sent on to the ledger. */
const ApprovalIdParam = new PathIdPipe(INTERNAL_ID_PATTERN, 'NOT_FOUND', (id) => `No approval request ${id}`);

/**
 * Four eyes on large operator money actions: a conversion or deposit adjustment above its
 * currency's threshold answers 202 with a request, which a second operator approves here (the
 * money moves then, once) or rejects. The requester cannot approve their own (403 FORBIDDEN),
 * whichever of his credentials he uses, and neither can an operator he issued or who issued him.
 */
@BackofficeApiDocs('Approvals')
@Controller('backoffice/v1/approvals')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class ApprovalsOperatorController {
  constructor(
    private readonly ledger: LedgerReadClient,
    @Inject(BackofficeCredentialStore) private readonly credentials: BackofficeCredentialStore,
  ) {}

  /** Requests oldest first; `?status=` defaults to pending. */
  @Get()
  @ApiOperation({ operationId: 'listApprovals', summary: 'List deposit-adjustment approval requests' })
  @ApiResponse({ status: 200, description: 'The requests' })
  async list(@Query() query: ApprovalsQuery): Promise<unknown> {
    const params = new URLSearchParams({ status: query.status ?? 'pending' });
    if (query.merchant_id !== undefined) params.set('merchant_id', query.merchant_id);
    if (query.limit !== undefined) params.set('limit', query.limit);
    return await this.ledger.listApprovals(params);
  }

  @HttpCode(200)
  @Post(':approvalId/approve')
  @ApiOperation({ operationId: 'approveAdjustment', summary: 'Approve a request (a second operator)' })
  @ApiResponse({ status: 200, description: 'The request, approved and booked' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'FORBIDDEN', 'ORDER_STATE_CONFLICT')
  async approve(@CurrentPrincipal() operator: BackofficePrincipal, @Param('approvalId', ApprovalIdParam) approvalId: string): Promise<unknown> {
    const id = approvalIdOf(approvalId);
    // The ledger refuses the requester, and any operator related to the approver by issuance.
    return await this.ledger.decideApproval(id, 'approve', {
      operator_id: actingOperatorId(operator),
      related_operator_ids: await this.credentials.relatedOperators(operator),
    });
  }

  @HttpCode(200)
  @Post(':approvalId/reject')
  @ApiOperation({ operationId: 'rejectAdjustment', summary: 'Reject a request' })
  @ApiResponse({ status: 200, description: 'The request, rejected' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async reject(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('approvalId', ApprovalIdParam) approvalId: string,
    @Body() body: RejectionBody,
  ): Promise<unknown> {
    return await this.ledger.decideApproval(approvalIdOf(approvalId), 'reject', { operator_id: actingOperatorId(operator), reason: body.reason });
  }
}

/** An id the ledger never issued is answered here: 404, like any unknown approval. */
function approvalIdOf(approvalId: string): string {
  if (!APPROVAL_ID_PATTERN.test(approvalId)) throw new DomainError('NOT_FOUND', `No approval request ${approvalId}`);
  return approvalId;
}
