import { ConfigError, ConfigReader, describeConfiguration, readKafkaConnectionConfig, type Environment } from './config';
import { GENERATED_TABLE_BEGIN, GENERATED_TABLE_END, renderConfigurationTable, replaceGeneratedTable } from './configuration-table';

function loadExample(environment: Environment) {
  const reader = new ConfigReader(environment);
  const config = {
    port: reader.integer('EXAMPLE_PORT', { default: 3000, description: 'listen port' }),
    url: reader.url('EXAMPLE_DATABASE_URL', { protocols: ['postgres:'], description: 'its database' }),
    id: reader.string('EXAMPLE_ID', { default: `ex-${Math.random()}`, defaultText: 'random', description: 'names the replica' }),
    hosts: reader.list('EXAMPLE_HOSTS', { default: '', description: 'a | b' }),
    flag: reader.boolean('EXAMPLE_FLAG', false, { description: 'a switch' }),
    fault: reader.optionalString('EXAMPLE_FAULT'),
    ...readKafkaConnectionConfig(reader),
  };
  reader.assertValid();
  return config;
}

describe('describeConfiguration', () => {
  const variables = describeConfiguration(loadExample);
  const byName = Object.fromEntries(variables.map((variable) => [variable.name, variable]));

  it('lists every variable the loader reads, sorted, with its default as the table shows it', () => {
    expect(byName['EXAMPLE_PORT']).toEqual({ name: 'EXAMPLE_PORT', default: '`3000`', description: 'listen port' });
    expect(byName['EXAMPLE_DATABASE_URL']).toEqual({ name: 'EXAMPLE_DATABASE_URL', default: undefined, description: 'its database' });
    expect(byName['EXAMPLE_ID']).toEqual({ name: 'EXAMPLE_ID', default: 'random', description: 'names the replica' });
    expect(byName['EXAMPLE_HOSTS'].default).toBe('empty');
    expect(byName['EXAMPLE_FLAG'].default).toBe('`false`');
    expect(byName['EXAMPLE_FAULT']).toEqual({ name: 'EXAMPLE_FAULT', default: 'unset', description: undefined });
    expect(variables.map(({ name }) => name)).toEqual([...variables.map(({ name }) => name)].sort());
  });

  it('lists the SASL settings although the empty environment means PLAINTEXT', () => {
    expect(byName['KAFKA_SASL_USERNAME'].default).toBe('required with `SASL_SSL`');
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['KAFKA_SASL_PASSWORD', 'KAFKA_SASL_MECHANISM', 'KAFKA_SSL_CA_FILE']));
  });

  it('records nothing outside a description, and lets errors other than ConfigError through', () => {
    new ConfigReader({}).integer('OUTSIDE', { default: 1 });
    expect(describeConfiguration(loadExample).map(({ name }) => name)).not.toContain('OUTSIDE');
    expect(() =>
      describeConfiguration(() => {
        throw new TypeError('a bug');
      }),
    ).toThrow(TypeError);
    expect(() => loadExample({})).toThrow(ConfigError);
  });
});

describe('renderConfigurationTable', () => {
  it('merges what services read alike, says all when every one does, and escapes pipes', () => {
    const table = renderConfigurationTable([
      {
        service: 'a',
        variables: [
          { name: 'SHARED', default: '`1`', description: 'x | y' },
          { name: 'A_ONLY', description: 'mine' },
        ],
      },
      {
        service: 'b',
        variables: [
          { name: 'SHARED', default: '`1`', description: 'x | y' },
          { name: 'URL', default: '`u`', description: 'for b' },
        ],
      },
      {
        service: 'c',
        variables: [
          { name: 'SHARED', default: '`1`', description: 'x | y' },
          { name: 'URL', default: '`v`', description: 'for c' },
        ],
      },
    ]);
    expect(table.split('\n')).toEqual([
      '| Variable | Services | Default | Meaning |',
      '|---|---|---|---|',
      '| `A_ONLY` | a | required | mine |',
      '| `SHARED` | all | `1` | x \\| y |',
      '| `URL` | b | `u` | for b |',
      '| `URL` | c | `v` | for c |',
    ]);
  });

  it('replaces only the text between the markers, and refuses a page without them', () => {
    const page = `# T\n\n${GENERATED_TABLE_BEGIN}\nold\n${GENERATED_TABLE_END}\n\nafter\n`;
    expect(replaceGeneratedTable(page, 'new')).toBe(`# T\n\n${GENERATED_TABLE_BEGIN}\nnew\n${GENERATED_TABLE_END}\n\nafter\n`);
    expect(() => replaceGeneratedTable('# T\n', 'new')).toThrow('markers are missing');
  });
});
