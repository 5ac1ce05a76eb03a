import { InternalHttpClient } from '@mp/shared-service-auth';
import { DomainError, readInternalErrorBody } from '@mp/shared-util-errors';
import type { HoldView, PlaceHoldRequest } from '@mp/contracts-ledger';

/** What a service that freezes funds before its object exists (payouts, withdrawals) needs from the ledger. */
export interface LedgerHolds {
  /** Throws DomainError('INSUFFICIENT_FUNDS') when the funds are not available. */
  placeHold(request: PlaceHoldRequest): Promise<HoldView>;
}

/**
 * The client of `POST /internal/holds`, shared by the services that place holds so they read
 * the ledger's answers the same way. A 400 with a platform error code is a business refusal
 * (DomainError); anything else (transport, 5xx) is an ordinary Error, which
 * placeHoldForNewObject turns into a refusal.
 */
export class HttpLedgerHolds implements LedgerHolds {
  private readonly ledger: InternalHttpClient;

  constructor(
    ledgerUrl: string,
    timeoutMs: number,
    /** The caller's service token for the ledger (`Bearer …`); a refused token (401/403) is an ordinary Error, so the command is retried. */
    authorization: () => Promise<string>,
  ) {
    this.ledger = new InternalHttpClient({ service: 'ledger', baseUrl: ledgerUrl, timeoutMs, authorization });
  }

  async placeHold(request: PlaceHoldRequest): Promise<HoldView> {
    const answer = await this.ledger.call<HoldView>('POST', '/internal/holds', { body: request });
    if (answer.status >= 200 && answer.status < 300 && answer.body) return answer.body;
    const refusal = answer.status === 400 ? readInternalErrorBody(answer.body, 'The hold was refused') : null;
    if (refusal) throw refusal;
    throw new Error(`ledger answered ${answer.status} to hold ${request.hold_id}`);
  }
}

/**
 * The hold that must exist before a payout or withdrawal does (docs/api). When the ledger
 * cannot be reached or does not answer, the request is refused with SERVICE_UNAVAILABLE instead
 * of the command being retried in place, which would hold up every command behind it on its
 * partition until the ledger is back (the chaos run saw pay-ins answered 503 for a minute behind
 * one payout). Nothing is written, and the merchant's retry with the same order_id finds the
 * same hold by its id; a hold placed whose answer was lost, never retried, is voided by the
 * ledger's orphan-hold sweep. The ledger's own refusals (DomainError) go up as they are.
 */
export function placeHoldForNewObject(ledger: LedgerHolds, request: PlaceHoldRequest, object: 'payout' | 'withdrawal'): Promise<HoldView> {
  return ledger.placeHold(request).catch((error: unknown) => {
    if (error instanceof DomainError) throw error;
    throw new DomainError(
      'SERVICE_UNAVAILABLE',
      `The ${object}'s funds could not be frozen just now; retrying with the same order_id is safe and never creates a second ${object}`,
    );
  });
}
