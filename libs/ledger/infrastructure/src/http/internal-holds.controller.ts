import { Body, Controller, Headers, Inject, Post, Res } from '@nestjs/common';
import type { HoldView } from '@mp/contracts-ledger';
import { RequestPipe } from '@mp/shared-nest-http';
import type { FastifyReply } from 'fastify';
import { CLOCK, type Clock } from '@mp/shared-util-clock';
import { DataSource } from 'typeorm';
import { handleLedgerCommand } from '../commands/ledger.stream';
import { touchHoldRequest } from '../holds/hold-attachment';
import { requestCausation } from './causation';
import { PlaceHoldRequestDto } from './ledger-requests';

const bodyPipe = new RequestPipe();

/**
 * Holds for payouts and withdrawals, placed synchronously by the service about to create one:
 * 201 when this request froze the funds, 200 when the same hold already existed (a retry; its
 * current status is returned), 400 INSUFFICIENT_FUNDS when the available settlement balance
 * does not cover amount + fee, 400 VALIDATION_ERROR for a malformed request or a hold id
 * reused with other parameters. Internal only: the caller has authenticated the merchant.
 */
@Controller('internal/holds')
export class InternalHoldsController {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post()
  async placeHold(
    @Body(bodyPipe) body: PlaceHoldRequestDto,
    @Headers() headers: Record<string, string | undefined>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<HoldView> {
    const request = {
      holdId: body.hold_id,
      merchantId: body.merchant_id,
      currency: body.currency,
      amountMinor: BigInt(body.amount_minor),
      feeMinor: BigInt(body.fee_minor),
      reference: { kind: body.reference.kind, id: body.reference.id },
    };
    const result = await this.dataSource.transaction(async (manager) => {
      const execution = await handleLedgerCommand(
        { manager },
        request.merchantId,
        request.currency,
        {
          type: 'PlaceHold',
          data: { holdId: request.holdId, amountMinor: request.amountMinor, feeMinor: request.feeMinor, reference: request.reference },
          metadata: { now: this.clock.now() },
        },
        requestCausation(headers),
      );
      // A retry of the caller's create is in progress: the orphan sweep must wait for it.
      if (execution.events.length === 0) await touchHoldRequest(manager, request.merchantId, request.currency, request.holdId);
      return execution;
    });
    const hold = result.state.holds.get(request.holdId);
    if (!hold) throw new Error(`hold ${request.holdId} missing after it was placed`);
    void reply.status(result.events.length > 0 ? 201 : 200);
    return { hold_id: request.holdId, status: hold.status, amount_minor: hold.amountMinor.toString(), fee_minor: hold.feeMinor.toString() };
  }
}
