import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { consecutiveFailuresReason, endpointHealthOf, judgeAttempt, nextRetryDelayMs, originHealthOf, shouldDisableEndpoint } from '@mp/callbacks-domain';
import { DataSource } from 'typeorm';
import { CALLBACKS_SETTINGS, CLOCK, type CallbacksSettings, type Clock } from '../callbacks-settings';
import { transactionInFewTrips } from '@mp/shared-messaging';
import { claimDueDeliveries, hasDueDeliveries, readAttemptBasis, recordAttempt, releaseClaim, type ClaimedDelivery } from '../persistence/delivery.store';
import { disableEndpoint, recordEndpointHealth, recordOriginHealth } from '../persistence/endpoint-health.store';
import { CallbackSender } from './callback-sender';
import { recordingAgainOnConflict } from './recording-retry';
import { signedHeaders, type WebhookProfiles } from './webhook-profile.client';

export const WEBHOOK_PROFILES = Symbol('WEBHOOK_PROFILES');
/** How long a delivery waits when the merchant's secrets could not be read (not counted as an attempt). */
const PROFILE_UNAVAILABLE_DELAY_MS = 5_000;

/**
 * Sends due callbacks. Every poll (and every nudge from the consumer) claims due rows from the
 * database, so retries survive restarts and are shared by every replica. Fairness between
 * destination origins and their circuit breakers live in the database too (claimDueDeliveries),
 * so every replica sees them; the in-memory state is only what is in flight here, bounded in total.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryWorker.name);
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private claiming: Promise<void> | null = null;
  private again = false;
  /** A nudge said new deliveries were recorded: the next claim skips asking whether any is due. */
  private recorded = false;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(CALLBACKS_SETTINGS) private readonly settings: CallbacksSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(WEBHOOK_PROFILES) private readonly profiles: WebhookProfiles,
    private readonly sender: CallbackSender,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.nudge(), this.settings.pollIntervalMs);
    this.nudge();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.claiming;
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Look for due deliveries now (the clock moved, a slot freed; `recorded`: new deliveries were
   * just recorded, so the claim goes straight on without first asking whether any is due).
   */
  nudge(recorded = false): void {
    if (this.stopped) return;
    this.recorded ||= recorded;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claimAndSend()
      .catch((error: unknown) => this.logger.warn(`claiming due callbacks failed: ${String(error)}`))
      .finally(() => {
        this.claiming = null;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  private async claimAndSend(): Promise<void> {
    const free = this.settings.totalConcurrency - this.inFlight.size;
    if (free <= 0) return;
    // Most polls and nudges find nothing due: one plain read says so, without the claim's transaction and lock.
    const now = this.clock.now();
    const recorded = this.recorded;
    this.recorded = false;
    if (!recorded && !(await hasDueDeliveries(this.dataSource.manager, now))) return;
    const claimed = await this.dataSource.transaction((manager) =>
      claimDueDeliveries(manager, {
        owner: this.settings.instanceId,
        now,
        leaseMs: this.settings.leaseMs,
        limit: free,
        perOriginConcurrency: this.settings.perOriginConcurrency,
      }),
    );
    for (const delivery of claimed) {
      const running: Promise<void> = this.attempt(delivery)
        .catch((error: unknown) =>
          this.logger.error(`callback ${delivery.deliveryId} attempt ${delivery.attemptNumber} could not be recorded: ${String(error)}`),
        )
        .finally(() => {
          this.inFlight.delete(running);
          this.nudge();
        });
      this.inFlight.add(running);
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    let secrets: string[];
    let allowList: string[];
    try {
      const profile = await this.profiles.find(delivery.merchantId);
      secrets = profile?.webhook_secrets.map((entry) => entry.secret) ?? [];
      allowList = profile?.allowed_callback_destinations ?? [];
    } catch (error) {
      this.logger.warn(`webhook secrets of ${delivery.merchantId} unavailable, callback ${delivery.deliveryId} waits: ${String(error)}`);
      await this.dataSource.transaction((manager) => releaseClaim(manager, delivery, new Date(this.clock.now().getTime() + PROFILE_UNAVAILABLE_DELAY_MS)));
      return;
    }
    const attemptTime = this.clock.now();
    const webhookTimestamp = Math.floor(attemptTime.getTime() / 1_000);
    if (secrets.length === 0) {
      // No merchant, no secret: nothing can be signed, and waiting will not change that.
      this.logger.error(`callback ${delivery.deliveryId}: merchant ${delivery.merchantId} has no webhook secret; given up`);
      await this.dataSource.transaction((manager) =>
        recordAttempt(
          manager,
          delivery,
          { outcome: 'refused_destination', responseStatus: null, latencyMs: 0, excerpt: null, error: 'the merchant has no webhook secret', webhookTimestamp },
          { status: 'failed' },
        ),
      );
      return;
    }
    const sent = await this.sender.send(delivery.targetUrl, signedHeaders(delivery.deliveryId, attemptTime, delivery.body, secrets), delivery.body, allowList);
    const verdict = judgeAttempt(sent.transport);
    const record = {
      outcome: verdict.outcome,
      responseStatus: sent.transport.kind === 'response' ? sent.transport.status : null,
      latencyMs: sent.latencyMs,
      excerpt: sent.excerpt,
      error: sent.error,
      webhookTimestamp,
    };
    const finishedAt = this.clock.now();
    const originHealth = originHealthOf(sent.transport);
    const circuitBreaker = { failureThreshold: this.settings.circuitFailureThreshold, cooldownMs: this.settings.circuitCooldownMs };
    const endpointHealth = endpointHealthOf(verdict);
    // The outcome is decided from the row as the claim left it; the health and attempt writes are
    // held back and sent as one statement, with no BEGIN or COMMIT around it; disabling an
    // endpoint (rare) sends them first and takes a transaction. When the row moved on since the
    // claim (an operator's redelivery, an endpoint disabled), that statement fails whole and the
    // attempt is recorded again from a read of the row (a plain read, before BEGIN).
    await recordingAgainOnConflict((again) =>
      transactionInFewTrips(this.dataSource, async (manager) => {
        // After disabling an endpoint (which parks this delivery too) recordAttempt reads the row itself.
        const basis = !again && delivery.claimedAs ? delivery.claimedAs : await readAttemptBasis(manager, delivery);
        if (originHealth) await recordOriginHealth(manager, delivery.targetOrigin, originHealth, circuitBreaker, finishedAt);
        const failureRun = endpointHealth ? await recordEndpointHealth(manager, delivery.merchantId, delivery.targetUrl, endpointHealth, finishedAt) : null;
        if (verdict.next === 'done') return recordAttempt(manager, delivery, record, { status: 'succeeded', at: finishedAt }, basis);
        if (verdict.next === 'disable_endpoint') {
          // Merchants and operators see it in the disabled-endpoints lists; this log line is the alert hook.
          this.logger.warn(
            `callback endpoint disabled: merchant ${delivery.merchantId} ${delivery.targetUrl} answered 410 Gone (callback ${delivery.deliveryId})`,
          );
          await disableEndpoint(manager, delivery.merchantId, delivery.targetUrl, 'gone', `410 Gone to callback ${delivery.deliveryId}`, finishedAt);
          return recordAttempt(manager, delivery, record, { status: 'endpoint_disabled' });
        }
        if (failureRun && shouldDisableEndpoint(failureRun, this.settings.endpointDisabling, finishedAt)) {
          const reason = consecutiveFailuresReason(failureRun);
          this.logger.warn(`callback endpoint disabled: merchant ${delivery.merchantId} ${delivery.targetUrl}: ${reason} (callback ${delivery.deliveryId})`);
          await disableEndpoint(manager, delivery.merchantId, delivery.targetUrl, 'consecutive_failures', reason, finishedAt);
          return recordAttempt(manager, delivery, record, { status: 'endpoint_disabled' });
        }
        const delayMs = nextRetryDelayMs(this.settings.retrySchedule, delivery.attemptNumber);
        if (delayMs === null) {
          this.logger.warn(
            `callback ${delivery.deliveryId} failed for good after ${delivery.attemptNumber} attempts (${record.outcome} ${record.responseStatus ?? record.error ?? ''})`,
          );
          return recordAttempt(manager, delivery, record, { status: 'failed' }, basis);
        }
        return recordAttempt(manager, delivery, record, { status: 'pending', at: new Date(finishedAt.getTime() + delayMs) }, basis);
      }),
    );
  }
}
