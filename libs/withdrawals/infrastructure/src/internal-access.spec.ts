import 'reflect-metadata';
import { InternalEventAnchorsController } from '@mp/shared-command-handling';
import { accessPolicyGaps } from '@mp/shared-service-auth';
import { InternalWithdrawalsController } from './http/internal-withdrawals.controller';
import { WITHDRAWALS_INTERNAL_ACCESS } from './internal-access';

describe('WITHDRAWALS_INTERNAL_ACCESS', () => {
  it('names only routes the controllers declare, and leaves no internal route to nobody', () => {
    expect(accessPolicyGaps(WITHDRAWALS_INTERNAL_ACCESS, [InternalEventAnchorsController, InternalWithdrawalsController])).toEqual({
      unknownRules: [],
      unreachableRoutes: [],
    });
  });
});
