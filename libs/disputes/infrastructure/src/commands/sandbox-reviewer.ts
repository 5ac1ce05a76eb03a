import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SANDBOX_AGENT_ID } from '@mp/contracts-payments';
import { sandboxReviewOf } from '@mp/disputes-domain';
import { PeriodicTask } from '@mp/shared-command-handling';
import { DataSource, type EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '../disputes-settings';
import { handleDisputeCommand, loadDispute } from './dispute.stream';

const BATCH_SIZE = 100;

/**
 * How often open test-mode disputes are looked for. Fixed rather than configured: the query
 * reads only the partial index of open test-mode disputes (SandboxDisputes1700000032300),
 * which is empty wherever nobody uses the sandbox, and an integrator expects an answer within seconds.
 */
const SANDBOX_REVIEW_INTERVAL_MS = 1_000;

/**
 * The sandbox's reviewer (docs/api/sandbox.md): reviews the open disputes of test-mode merchants
 * (ids `test_…`) as their orders' simulated agent, by the disputed amount (sandboxReviewOf),
 * through the same decider as a live review, so payments settles an accepted one and the
 * merchant gets the usual callbacks. A review waits in the projection for payments' acknowledgement,
 * so a dispute may be seen again meanwhile: the decider answers the same decision with nothing.
 */
@Injectable()
export class SandboxReviewer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SandboxReviewer.name);
  private readonly task = new PeriodicTask(
    () => this.reviewOnce(),
    (error) => this.logger.warn(`sandbox review pass failed: ${String(error)}`),
  );

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(SANDBOX_REVIEW_INTERVAL_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  private async reviewOnce(): Promise<number> {
    const open: Array<{ merchant_id: string; order_id: string }> = await this.dataSource.query(
      `SELECT merchant_id, order_id FROM disputes WHERE status = 'OPEN' AND merchant_id LIKE 'test\\_%' ORDER BY list_position LIMIT $1`,
      [BATCH_SIZE],
    );
    let reviewed = 0;
    for (const dispute of open) {
      try {
        if (await this.dataSource.transaction((manager) => this.review(manager, dispute.merchant_id, dispute.order_id))) reviewed += 1;
      } catch (error) {
        this.logger.warn(`sandbox reviewer could not review ${dispute.merchant_id}/${dispute.order_id}: ${String(error)}`);
      }
    }
    return reviewed;
  }

  private async review(manager: EntityManager, merchantId: string, orderId: string): Promise<boolean> {
    const { state } = await loadDispute(manager, merchantId, orderId);
    if (state.status !== 'OPEN') return false;
    const { decision, reason } = sandboxReviewOf(state);
    const reviewer = { role: 'agent' as const, id: state.orderAgentId ?? SANDBOX_AGENT_ID };
    const result = await handleDisputeCommand(
      manager,
      merchantId,
      orderId,
      { type: 'ReviewDispute', data: { decision, reviewer, reason }, metadata: { now: this.clock.now() } },
      { id: randomUUID(), correlationId: `sandbox-review-${orderId}` },
    );
    return result.events.length > 0;
  }
}
