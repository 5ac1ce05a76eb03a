import 'reflect-metadata';
import { InternalEventAnchorsController } from '@mp/shared-command-handling';
import { accessPolicyGaps } from '@mp/shared-service-auth';
import { InternalOrdersController } from './read-orders/internal-orders.controller';
import { InternalReferenceDataController } from './reference-data/internal-reference-data.controller';
import { InternalRecipientAccountsController } from './recipient-accounts/internal-recipient-accounts.controller';
import { PAYMENTS_INTERNAL_ACCESS } from './internal-access';

describe('PAYMENTS_INTERNAL_ACCESS', () => {
  it('names only routes the controllers declare, and leaves no internal route to nobody', () => {
    expect(
      accessPolicyGaps(PAYMENTS_INTERNAL_ACCESS, [
        InternalEventAnchorsController,
        InternalOrdersController,
        InternalReferenceDataController,
        InternalRecipientAccountsController,
      ]),
    ).toEqual({ unknownRules: [], unreachableRoutes: [] });
  });
});
