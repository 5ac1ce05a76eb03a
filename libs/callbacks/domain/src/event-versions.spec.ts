/**
 * Goal: every callback delivery event version ever written can still be read: the fixture holds
 * one stored envelope of every (type, version), today's upcasters and evolve read and fold all of
 * it, a new version comes with its fixture entry and its upcaster, and the catalogue page lists them.
 * Method: libs/shared/decider's eventVersionChecks over event-versions.fixture.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventCodec, eventVersionChecks } from '@mp/shared-decider';
import { CALLBACK_DELIVERY_EVENT_SCHEMAS, evolveCallbackDelivery, initialCallbackDeliveryState } from './delivery-events';

const read = (path: string) => readFileSync(join(__dirname, path), 'utf8');

describe('callbacks event versions', () => {
  const checks = eventVersionChecks({
    schemas: CALLBACK_DELIVERY_EVENT_SCHEMAS,
    codec: eventCodec(CALLBACK_DELIVERY_EVENT_SCHEMAS),
    foldOf: () => ({ initialState: initialCallbackDeliveryState, evolve: evolveCallbackDelivery }),
    fixture: JSON.parse(read('event-versions.fixture.json')),
    catalogue: read('../../../../docs/operations/event-catalogue.md'),
  });
  for (const check of checks) it(check.name, check.run);
});
