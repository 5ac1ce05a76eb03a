import type { HoldView, PlaceHoldRequest } from '@mp/contracts-ledger';
import { DomainError, isErrorCode } from '@mp/shared-util-errors';

/** What the payments service needs from the ledger: a synchronous, idempotent hold. */
export interface LedgerHolds {
  /** Throws DomainError('INSUFFICIENT_FUNDS') when the funds are not available. */
  placeHold(request: PlaceHoldRequest): Promise<HoldView>;
}

export const LEDGER_HOLDS = Symbol('LEDGER_HOLDS');

/** The ledger's internal HTTP API. A transport failure is an ordinary Error: the command is retried. */
export class HttpLedgerHolds implements LedgerHolds {
  constructor(
    private readonly ledgerUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async placeHold(request: PlaceHoldRequest): Promise<HoldView> {
    const response = await fetch(`${this.ledgerUrl}/internal/holds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
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
