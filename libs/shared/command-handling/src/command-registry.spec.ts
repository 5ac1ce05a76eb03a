/**
 * Goal: a command topic whose registry lacks a file, lists a type the contract does not have,
 * files a command under another's type or registers one file twice does not boot. Method: the
 * registry built from a two-type contract, each mistake forced past the compiler with a cast
 * (the compiler refuses every one of them otherwise, see the @ts-expect-error lines).
 */
import { createEnvelope } from '@mp/shared-messaging';
import { commandRegistry, type WireCommand } from './command-registry';

const TYPES = { open: 'Open', close: 'Close' } as const;
type Type = (typeof TYPES)[keyof typeof TYPES];
type File<T extends Type> = WireCommand<T, { id: string }, string, string>;

class OpenPayload {}
const open: File<'Open'> = { type: 'Open', payload: OpenPayload, resolve: async (context, data) => `${context} opened ${data.id}` };
const close: File<'Close'> = { type: 'Close', payload: null, resolve: async (context, data) => `${context} closed ${data.id}` };
const build = (files: object) => () => commandRegistry<Type, string, string>(1, TYPES, files as never);
const envelopeOf = (type: Type) => createEnvelope({ type, schemaVersion: 1, source: 'test', subject: 'test', data: { id: 'A-1' }, correlationId: 'c' });

describe('commandRegistry', () => {
  it('resolves each type by its own file and gives the intake each payload class', async () => {
    const registry = commandRegistry<Type, string, string>(1, TYPES, { Open: open, Close: close });
    expect(await registry.resolve('ctx', envelopeOf('Close'))).toBe('ctx closed A-1');
    expect(await registry.resolve('ctx', envelopeOf('Open'))).toBe('ctx opened A-1');
    expect(registry.contract).toEqual({ schemaVersion: 1, payloads: { Open: OpenPayload, Close: null } });
  });

  it('refuses a contract type with no file', () => {
    // @ts-expect-error Close has no file
    expect(() => commandRegistry<Type, string, string>(1, TYPES, { Open: open })).toThrow('no file for Close');
    expect(build({ Open: open })).toThrow('no file for Close');
  });

  it('refuses a type the contract does not have', () => {
    expect(build({ Open: open, Close: close, Reopen: { ...open, type: 'Reopen' } })).toThrow('Reopen is not a type of the contract');
  });

  it("refuses a file under another command's type", () => {
    // @ts-expect-error the file of Open under Close
    expect(() => commandRegistry<Type, string, string>(1, TYPES, { Open: open, Close: open })).toThrow('Close is registered to the file of Open');
  });

  it('refuses one file registered for two types', () => {
    const shared = { type: 'Open', payload: null, resolve: async () => 'either' };
    expect(build({ Open: shared, Close: shared })).toThrow('one file is registered for both Open and Close');
  });

  it('accepts a well-formed registry with nothing to say', () => {
    expect(build({ Open: open, Close: close })).not.toThrow();
  });
});
