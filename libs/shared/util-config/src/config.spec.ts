import { ConfigError, ConfigReader, readLogFormat } from './config';

describe('ConfigReader', () => {
  it('reads typed values with defaults', () => {
    const reader = new ConfigReader({ PORT: '8080', FLAG: 'true', URLS: 'a:1, b:2' });
    expect(reader.integer('PORT', { min: 1 })).toBe(8080);
    expect(reader.boolean('FLAG', false)).toBe(true);
    expect(reader.list('URLS')).toEqual(['a:1', 'b:2']);
    expect(reader.string('MISSING', { default: 'x' })).toBe('x');
    expect(() => reader.assertValid()).not.toThrow();
  });

  it('reports every problem at once', () => {
    const reader = new ConfigReader({ PORT: 'eighty', BASE: 'not a url', FLAG: 'maybe' });
    reader.integer('PORT');
    reader.url('BASE');
    reader.boolean('FLAG', false);
    reader.string('REQUIRED');
    let thrown: unknown;
    try {
      reader.assertValid();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toHaveLength(4);
  });

  it('reads LOG_FORMAT as json or pretty and names anything else', () => {
    expect(readLogFormat(new ConfigReader({}))).toBe('pretty');
    expect(readLogFormat(new ConfigReader({ LOG_FORMAT: 'json' }))).toBe('json');
    const reader = new ConfigReader({ LOG_FORMAT: 'xml' });
    readLogFormat(reader);
    expect(() => reader.assertValid()).toThrow('LOG_FORMAT must be one of pretty, json, got "xml"');
  });
});
