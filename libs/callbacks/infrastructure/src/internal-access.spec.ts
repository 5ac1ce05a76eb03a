import 'reflect-metadata';
import { InternalEventAnchorsController } from '@mp/shared-command-handling';
import { accessPolicyGaps } from '@mp/shared-service-auth';
import { InternalCallbacksController } from './http/internal-callbacks.controller';
import { CALLBACKS_INTERNAL_ACCESS } from './internal-access';

describe('CALLBACKS_INTERNAL_ACCESS', () => {
  it('names only routes the controllers declare, and leaves no internal route to nobody', () => {
    expect(accessPolicyGaps(CALLBACKS_INTERNAL_ACCESS, [InternalEventAnchorsController, InternalCallbacksController])).toEqual({
      unknownRules: [],
      unreachableRoutes: [],
    });
  });
});
