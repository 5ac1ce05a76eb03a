import { parseCommandLine } from './command-line';
import { ConfigError } from './config';

describe('parseCommandLine', () => {
  const options = { name: { type: 'string' }, json: { type: 'boolean', default: false } } as const;

  it('parses known flags and positionals', () => {
    expect(parseCommandLine({ args: ['list', '--name', 'Shop', '--json'], options, allowPositionals: true })).toEqual({
      values: { name: 'Shop', json: true },
      positionals: ['list'],
    });
  });

  it('refuses an unknown flag with a ConfigError that names it', () => {
    expect(() => parseCommandLine({ args: ['--bogus'], options })).toThrow(ConfigError);
    expect(() => parseCommandLine({ args: ['--bogus'], options })).toThrow(/Unknown option '--bogus'/);
  });

  it('refuses a flag without its value and a positional where none is expected', () => {
    expect(() => parseCommandLine({ args: ['--name'], options })).toThrow(/--name/);
    expect(() => parseCommandLine({ args: ['stray'], options })).toThrow(ConfigError);
  });
});
