// HTTP command POST /internal/disputes/{disputeId}/review → domain command ReviewDispute (disputeDecider).
import { Inject, Injectable } from '@nestjs/common';
import type { DisputeReviewer } from '@mp/disputes-domain';
import { DEFAULT_CONFLICT_RETRY_POLICY, retryOnConflict, type Causation } from '@mp/shared-command-handling';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../disputes-settings';
import { findDisputeOrder } from '../persistence/dispute.projection';
import { handleDisputeCommand } from './dispute.stream';

/**
 * A back-office review (the gateway's operator and agent endpoints, over the internal HTTP API):
 * the order's agent or an operator; anyone else is told the dispute does not exist. Its own
 * transaction, rerun on a version conflict.
 */
@Injectable()
export class DisputeReviews {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  review(disputeId: string, merchantId: string, decision: 'ACCEPTED' | 'REJECTED', reviewer: DisputeReviewer, reason: string | null, causation: Causation) {
    return retryOnConflict(DEFAULT_CONFLICT_RETRY_POLICY, () =>
      this.dataSource.transaction(async (manager) => {
        const target = await findDisputeOrder(manager, disputeId);
        if (!target || target.merchantId !== merchantId) throw new DomainError('DISPUTE_NOT_FOUND', `No dispute ${disputeId}`);
        const { dispute } = await handleDisputeCommand(
          manager,
          target.merchantId,
          target.orderId,
          { type: 'ReviewDispute', data: { decision, reviewer, reason }, metadata: { now: this.clock.now() } },
          causation,
        );
        return dispute;
      }),
    );
  }
}
