/**
 * Goal: the event-version rule fails a release that adds a version without its fixture entry
 * or its upcaster, and the replay names the event that no longer reads. Method: a made-up
 * schema table and fixture.
 */
import { eventCodec } from './event-schemas';
import { eventCatalogueTable, eventVersionChecks, eventVersionGaps, replayEventVersionFixture, type EventVersionFixture } from './event-versions';

type Noted = { type: 'Noted'; data: { text: string; by: string } };
const stored = (schemaVersion: number, data: unknown) => ({ type: 'Noted', schemaVersion, data });
const fixture = (...events: Array<ReturnType<typeof stored>>): EventVersionFixture => ({ service: 'notes', streams: [{ streamId: 'note:1', events }] });
const fold = { initialState: () => [] as string[], evolve: (state: string[], event: Noted) => [...state, `${event.data.text} by ${event.data.by}`] };
const upcasted = { Noted: { version: 2, upcasters: { 1: (data: { text: string }) => ({ ...data, by: 'nobody' }) } } };

describe('event version rule', () => {
  it('holds when every version from the first written has its stored event and its upcaster', () => {
    expect(eventVersionGaps(upcasted, fixture(stored(1, { text: 'a' }), stored(2, { text: 'b', by: 'me' })))).toEqual([]);
    expect(replayEventVersionFixture({ codec: eventCodec<Noted>(upcasted), foldOf: () => fold, fixture: fixture(stored(1, { text: 'a' })) })).toEqual([]);
  });

  it('fails a new version without its fixture entry, and one without its upcaster', () => {
    expect(eventVersionGaps(upcasted, fixture(stored(1, { text: 'a' })))).toEqual(['Noted: version 2, the current one, has no stored event in the fixture']);
    const noUpcaster = { Noted: { version: 2 } };
    expect(eventVersionGaps(noUpcaster, fixture(stored(1, { text: 'a' }), stored(2, { text: 'b', by: 'me' })))).toEqual([
      'Noted: version 1 has no upcaster to version 2',
    ]);
    expect(replayEventVersionFixture({ codec: eventCodec<Noted>(noUpcaster), foldOf: () => fold, fixture: fixture(stored(1, { text: 'a' })) })).toEqual([
      'note:1 event 1 (Noted version 1): Noted has no upcaster from version 1',
    ]);
  });

  it('fails a fixture of a type no schema reads, or of a version from the future', () => {
    expect(
      eventVersionGaps(upcasted, {
        service: 'notes',
        streams: [{ streamId: 'x', events: [stored(2, {}), stored(3, {}), { type: 'Gone', schemaVersion: 1, data: {} }] }],
      }),
    ).toEqual(['Noted: the fixture holds version 3, newer than the current 2', 'Gone: in the fixture but no schema reads it']);
  });

  it('checks the catalogue page against the schemas and the fixture', () => {
    const table = eventCatalogueTable(upcasted, fixture(stored(1, { text: 'a' }), stored(2, { text: 'b', by: 'me' })));
    expect(table.split('\n')[2]).toBe('| Noted | 1, 2 | 2 | 1 → 2 |');
    const checks = (catalogue: string) =>
      eventVersionChecks({
        schemas: upcasted,
        codec: eventCodec<Noted>(upcasted),
        foldOf: () => fold,
        fixture: fixture(stored(1, { text: 'a' }), stored(2, { text: 'b', by: 'me' })),
        catalogue,
      });
    const listed = checks(`<!-- event-catalogue:notes -->\n${table}\n<!-- /event-catalogue:notes -->`);
    for (const check of listed) expect(check.run).not.toThrow();
    expect(checks('no table')[2].run).toThrow(/must hold/);
  });
});
