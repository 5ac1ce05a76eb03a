import 'reflect-metadata';
import { InternalEventAnchorsController } from '@mp/shared-command-handling';
import { accessPolicyGaps } from '@mp/shared-service-auth';
import { InternalHoldsController } from './http/internal-holds.controller';
import { InternalMerchantLedgerController } from './http/internal-merchant-ledger.controller';
import { InternalConversionsController } from './http/internal-conversions.controller';
import { InternalApprovalsController } from './http/internal-approvals.controller';
import { LEDGER_INTERNAL_ACCESS } from './internal-access';

describe('LEDGER_INTERNAL_ACCESS', () => {
  it('names only routes the controllers declare, and leaves no internal route to nobody', () => {
    expect(
      accessPolicyGaps(LEDGER_INTERNAL_ACCESS, [
        InternalEventAnchorsController,
        InternalHoldsController,
        InternalMerchantLedgerController,
        InternalConversionsController,
        InternalApprovalsController,
      ]),
    ).toEqual({ unknownRules: [], unreachableRoutes: [] });
  });
});
