import { DomainError, isErrorCode } from '@mp/shared-util-errors';
import type { HoldView, PlaceHoldRequest } from '@mp/contracts-ledger';

/** What a service that freezes funds before its object exists (payouts, withdrawals) needs from the ledger. */
export interface LedgerHolds {
  /** Throws DomainError('INSUFFICIENT_FUNDS') when the funds are not available. */
  placeHold(request: PlaceHoldRequest): Promise<HoldView>;
}

/**
 * The client of `POST /internal/holds`, shared by the services that place holds so they read
 * the ledger's answers the same way. A 400 with a platform error code is a business refusal
 * (DomainError); anything else (transport, 5xx) is an ordinary Error: the command is retried.
 */
export class HttpLedgerHolds implements LedgerHolds {
  constructor(
    private readonly ledgerUrl: string,
    private readonly timeoutMs: number,
    /** The caller's service token for the ledger (`Bearer …`); a refused token (401/403) is an ordinary Error, so the command is retried. */
    private readonly authorization: () => Promise<string>,
  ) {}

  async placeHold(request: PlaceHoldRequest): Promise<HoldView> {
    const response = await fetch(`${this.ledgerUrl}/internal/holds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: await this.authorization() },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const body = (await response.json().catch(() => null)) as (HoldView & { code?: unknown; message?: unknown; details?: unknown }) | null;
    if (response.ok && body) return body;
    if (response.status === 400 && body && isErrorCode(body.code)) {
      throw new DomainError(body.code, String(body.message ?? 'The hold was refused'), Array.isArray(body.details) ? body.details : []);
    }
    throw new Error(`ledger answered ${response.status} to hold ${request.hold_id}`);
  }
}
