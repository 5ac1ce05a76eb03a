import 'reflect-metadata';
import { InternalEventAnchorsController } from '@mp/shared-command-handling';
import { accessPolicyGaps } from '@mp/shared-service-auth';
import { InternalDisputesController } from './http/internal-disputes.controller';
import { DISPUTES_INTERNAL_ACCESS } from './internal-access';

describe('DISPUTES_INTERNAL_ACCESS', () => {
  it('names only routes the controllers declare, and leaves no internal route to nobody', () => {
    expect(accessPolicyGaps(DISPUTES_INTERNAL_ACCESS, [InternalEventAnchorsController, InternalDisputesController])).toEqual({
      unknownRules: [],
      unreachableRoutes: [],
    });
  });
});
