import type { Decider } from '@mp/shared-decider';
import { DomainError } from '@mp/shared-util-errors';

/**
 * Four eyes on large operator money actions (issue 20): a conversion or deposit adjustment
 * above its currency's threshold (operator-limits.ts) is recorded as a request, and only a
 * second, different operator's approval moves the money. A request is decided once: approved,
 * rejected, or lapsed at `expiresAt`. The service stores the state as one row (the row is the
 * audit trail: who asked, who decided, when, why) and, in the same transaction as the
 * approval, books the money command the request carries, which is itself idempotent by its id.
 */

export type ApprovalKind = 'conversion' | 'deposit_adjustment';
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

export interface OperatorApproval {
  approvalId: string;
  kind: ApprovalKind;
  merchantId: string;
  /** The conversion_id or adjustment_id the money command will carry. */
  subjectId: string;
  /** The operator's request as the internal API took it, replayed as the money command on approval. */
  terms: Readonly<Record<string, string>>;
  requestedBy: string;
  requestedAt: Date;
  expiresAt: Date;
  status: 'pending' | 'approved' | 'rejected';
  decidedBy: string | null;
  decidedAt: Date | null;
  decisionReason: string | null;
}

export interface RequestApproval {
  type: 'RequestApproval';
  data: Pick<OperatorApproval, 'approvalId' | 'kind' | 'merchantId' | 'subjectId' | 'terms' | 'requestedBy' | 'expiresAt'>;
  metadata: { now: Date };
}

export interface ApproveRequest {
  type: 'ApproveRequest';
  /**
   * `relatedOperatorIds`: the operators related to the approver by issuance (who issued his
   * credential, up the chain, and whom he issued, the gateway's relatedOperators); none of them
   * is a second pair of eyes for him.
   */
  data: { operatorId: string; relatedOperatorIds?: string[] };
  metadata: { now: Date };
}

export interface RejectRequest {
  type: 'RejectRequest';
  data: { operatorId: string; reason: string };
  metadata: { now: Date };
}

export type ApprovalCommand = RequestApproval | ApproveRequest | RejectRequest;

export type ApprovalEvent =
  | { type: 'ApprovalRequested'; data: RequestApproval['data'] & { requestedAt: Date } }
  | { type: 'ApprovalGranted'; data: { operatorId: string; at: Date } }
  | { type: 'ApprovalRejected'; data: { operatorId: string; reason: string; at: Date } };

/** A pending request past its expiry reads as expired: lapsing needs no timer and no write. */
export function approvalStatusAt(approval: OperatorApproval, now: Date): ApprovalStatus {
  return approval.status === 'pending' && now.getTime() >= approval.expiresAt.getTime() ? 'expired' : approval.status;
}

export function decideApproval(command: ApprovalCommand, state: OperatorApproval | null): ApprovalEvent[] {
  if (command.type === 'RequestApproval') {
    if (state === null) return [{ type: 'ApprovalRequested', data: { ...command.data, requestedAt: command.metadata.now } }];
    // A retry of the same request answers with the one already waiting; other terms under the same id are refused.
    if (state.kind === command.data.kind && sameTerms(state.terms, command.data.terms)) return [];
    throw new DomainError('VALIDATION_ERROR', `${state.kind} ${state.subjectId} already awaits approval with other terms`, [
      { field: state.kind === 'conversion' ? 'conversion_id' : 'adjustment_id', issue: 'already used by a request awaiting approval with other terms' },
    ]);
  }
  if (state === null) throw new DomainError('NOT_FOUND', 'No such approval request', [{ field: 'approval_id', issue: 'no request with this id' }]);
  const status = approvalStatusAt(state, command.metadata.now);
  const operatorId = command.data.operatorId;

  if (command.type === 'ApproveRequest') {
    if (status === 'approved') return []; // a retry: the money moved once, with the first approval
    assertPending(state, status, 'approved');
    if (operatorId === state.requestedBy) {
      throw new DomainError('FORBIDDEN', 'The operator who requested this cannot approve it: a second operator must', [
        { field: 'operator', issue: 'SAME_OPERATOR: the approver must differ from the requester' },
      ]);
    }
    if ((command.data.relatedOperatorIds ?? []).includes(state.requestedBy)) {
      throw new DomainError('FORBIDDEN', 'An operator related to the requester by issuance cannot approve this: an independent operator must', [
        { field: 'operator', issue: 'ISSUANCE_RELATED: the approver issued the requester, or was issued by the requester or his issuers' },
      ]);
    }
    return [{ type: 'ApprovalGranted', data: { operatorId, at: command.metadata.now } }];
  }

  if (status === 'rejected') return [];
  assertPending(state, status, 'rejected');
  if (command.data.reason.trim() === '')
    throw new DomainError('VALIDATION_ERROR', 'The rejection is not valid', [{ field: 'reason', issue: 'must say why the request is rejected' }]);
  return [{ type: 'ApprovalRejected', data: { operatorId, reason: command.data.reason, at: command.metadata.now } }];
}

function assertPending(state: OperatorApproval, status: ApprovalStatus, wanted: 'approved' | 'rejected'): void {
  if (status === 'pending') return;
  const when = status === 'expired' ? `expired at ${state.expiresAt.toISOString()}; request it again` : `already ${status} by ${state.decidedBy ?? 'unknown'}`;
  throw new DomainError('VALIDATION_ERROR', `The request cannot be ${wanted}: it ${status === 'expired' ? 'has expired' : `is already ${status}`}`, [
    { field: 'approval_id', issue: when },
  ]);
}

export function evolveApproval(state: OperatorApproval | null, event: ApprovalEvent): OperatorApproval | null {
  switch (event.type) {
    case 'ApprovalRequested':
      return { ...event.data, status: 'pending', decidedBy: null, decidedAt: null, decisionReason: null };
    case 'ApprovalGranted':
      if (!state) throw new Error('ApprovalGranted without a request');
      return { ...state, status: 'approved', decidedBy: event.data.operatorId, decidedAt: event.data.at };
    case 'ApprovalRejected':
      if (!state) throw new Error('ApprovalRejected without a request');
      return { ...state, status: 'rejected', decidedBy: event.data.operatorId, decidedAt: event.data.at, decisionReason: event.data.reason };
  }
}

function sameTerms(left: Readonly<Record<string, string>>, right: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => left[key] === right[key]);
}

/** The approval rules as a value for the specs; the service stores the state as a row. */
export const approvalDecider: Decider<OperatorApproval | null, ApprovalCommand, ApprovalEvent> = {
  decide: decideApproval,
  evolve: evolveApproval,
  initialState: () => null,
};
