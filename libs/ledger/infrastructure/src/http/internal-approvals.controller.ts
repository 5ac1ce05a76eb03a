import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import type { OperatorApprovalView } from '@mp/contracts-ledger';
import { RequestPipe } from '@mp/shared-nest-http';
import { ServiceCaller, type VerifiedCaller } from '@mp/shared-service-auth';
import { OperatorMoneyActions } from '../approvals/operator-money.service';
import { actingOperatorOf } from './acting-operator';
import { requestCausation } from './causation';
import { ApprovalDecisionRequestDto, ApprovalIdParam, ApprovalsQueryDto } from './ledger-requests';

const requestPipe = new RequestPipe();

/**
 * Four eyes on large operator money actions (operator-approval.ts): the requests awaiting a
 * second operator, and that operator's approval (the money moves, once) or rejection (nothing
 * moves). The requester cannot approve their own request: 403 FORBIDDEN. Internal only: the
 * operator is the one the gateway's service token names.
 */
@Controller('internal/approvals')
export class InternalApprovalsController {
  constructor(private readonly actions: OperatorMoneyActions) {}

  /** `?status=pending|approved|rejected|expired&merchant_id=&limit=`, oldest first. */
  @Get()
  list(@Query(requestPipe) query: ApprovalsQueryDto): Promise<{ data: OperatorApprovalView[] }> {
    return this.actions.list({ status: query.status, merchantId: query.merchant_id, limit: query.limit === undefined ? 100 : Number(query.limit) });
  }

  /** 200 with the approved request; a retry by the approver answers the same and books nothing more. */
  @Post(':approvalId/approve')
  @HttpCode(200)
  approve(
    @Param('approvalId', ApprovalIdParam) approvalId: string,
    @Body(requestPipe) body: ApprovalDecisionRequestDto,
    @Headers() headers: Record<string, string | undefined>,
    @ServiceCaller() caller?: VerifiedCaller,
  ): Promise<OperatorApprovalView> {
    return this.actions.approve(
      approvalId,
      { operatorId: actingOperatorOf({ caller, body }), relatedOperatorIds: body.related_operator_ids ?? [] },
      requestCausation(headers),
    );
  }

  @Post(':approvalId/reject')
  @HttpCode(200)
  reject(
    @Param('approvalId', ApprovalIdParam) approvalId: string,
    @Body(requestPipe) body: ApprovalDecisionRequestDto,
    @ServiceCaller() caller?: VerifiedCaller,
  ): Promise<OperatorApprovalView> {
    // The decider requires the reason (VALIDATION_ERROR naming it), like every rule of the decision.
    return this.actions.reject(approvalId, actingOperatorOf({ caller, body }), body.reason ?? '');
  }
}
