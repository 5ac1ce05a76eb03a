import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { StateAsOfView } from '@mp/shared-command-handling';
import {
  DISPUTES_INTERNAL_PATHS,
  type DisputeList,
  type DisputeReceiptDownloadView,
  type OperatorDisputeList,
  type DisputeView,
  type StoredDisputeReceipt,
} from '@mp/contracts-disputes';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { InternalClient } from '../http/internal-client';
import { toQueryString } from '../payments/list-filters.request';

const paths = DISPUTES_INTERNAL_PATHS;

/** Reads, reviews and receipt storage on the disputes service's internal API (opens go through Kafka). */
@Injectable()
export class DisputesClient {
  private readonly client: InternalClient;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings, @Optional() @Inject(SERVICE_TOKEN_ISSUER) issuer?: ServiceTokenIssuer) {
    this.client = new InternalClient('disputes', settings.disputesInternalUrl, settings.paymentsReadTimeoutMs, authorizationFor(issuer, 'disputes'));
  }

  get(merchantId: string, disputeId: string): Promise<DisputeView> {
    return this.client.request('GET', paths.one(merchantId, disputeId));
  }

  /** Operators: the dispute as it stood at `at` (an RFC 3339 instant), from its stream. */
  getAsOf(merchantId: string, disputeId: string, at: string): Promise<StateAsOfView<DisputeView>> {
    return this.client.request('GET', `${paths.asOf(merchantId, disputeId)}?${new URLSearchParams({ at }).toString()}`);
  }

  list(merchantId: string, filters: Record<string, string | undefined>): Promise<DisputeList> {
    return this.client.request('GET', `${paths.list(merchantId)}${toQueryString(filters)}`);
  }

  /** The operators' queue: every merchant's disputes, newest first. */
  queue(filters: Record<string, string | undefined>): Promise<OperatorDisputeList> {
    return this.client.request('GET', `${paths.queue}${toQueryString(filters)}`);
  }

  /** The file bytes go to the disputes database over HTTP; the open command carries only the reference. */
  storeReceipt(merchantId: string, fileName: string, content: Buffer): Promise<StoredDisputeReceipt> {
    return this.client.request('POST', paths.receipts(merchantId), content, {
      'content-type': 'application/octet-stream',
      'x-file-name': encodeURIComponent(fileName),
    });
  }

  /** The dispute's receipt for a reviewer; the disputes service logs the download (who, when, which). */
  downloadReceipt(
    merchantId: string,
    disputeId: string,
    reviewer: { role: 'agent' | 'operator'; id: string },
  ): Promise<{ contentType: string; disposition: string | null; content: Readable }> {
    return this.client.stream(`${paths.receiptContent(merchantId, disputeId)}${toQueryString({ reviewer_role: reviewer.role, reviewer_id: reviewer.id })}`, {
      type: reviewer.role,
      id: reviewer.id,
    });
  }

  listReceiptDownloads(filters: Record<string, string | undefined>): Promise<{ data: DisputeReceiptDownloadView[] }> {
    return this.client.request('GET', `${paths.receiptDownloads}${toQueryString(filters)}`);
  }

  review(
    disputeId: string,
    body: { merchant_id: string; decision: 'ACCEPTED' | 'REJECTED'; reason?: string; reviewer_role: 'agent' | 'operator'; reviewer_id: string },
  ): Promise<DisputeView> {
    return this.client.request('POST', paths.review(disputeId), body, {}, { type: body.reviewer_role, id: body.reviewer_id });
  }
}
