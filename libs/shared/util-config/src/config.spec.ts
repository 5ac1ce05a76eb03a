import { ConfigError, ConfigReader, readKafkaConnectionConfig, readLogFormat } from './config';

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

  describe('Kafka connection', () => {
    const problemsOf = (environment: Record<string, string>): string[] => {
      const reader = new ConfigReader(environment);
      readKafkaConnectionConfig(reader);
      try {
        reader.assertValid();
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };

    it('creates missing topics unless KAFKA_CREATE_TOPICS=false (topics declared elsewhere), and names a value that is neither', () => {
      const createTopics = (value?: string) =>
        readKafkaConnectionConfig(new ConfigReader({ KAFKA_BROKERS: '127.0.0.1:9092', ...(value === undefined ? {} : { KAFKA_CREATE_TOPICS: value }) }))
          .createTopics;
      expect([createTopics(), createTopics('true'), createTopics('false')]).toEqual([true, true, false]);
      expect(problemsOf({ KAFKA_BROKERS: '127.0.0.1:9092', KAFKA_CREATE_TOPICS: 'never' })).toEqual(['KAFKA_CREATE_TOPICS must be true or false, got "never"']);
    });

    it('lets a loopback broker run PLAINTEXT, with no credentials', () => {
      const reader = new ConfigReader({ KAFKA_BROKERS: '127.0.0.1:19092,localhost:9092' });
      expect(readKafkaConnectionConfig(reader).kafkaSecurity).toBeNull();
      expect(() => reader.assertValid()).not.toThrow();
    });

    it('refuses PLAINTEXT to a broker off this machine: there is no switch to run without credentials', () => {
      expect(problemsOf({ KAFKA_BROKERS: 'kafka:9092' })).toEqual([
        expect.stringContaining('KAFKA_SECURITY_PROTOCOL must be SASL_SSL for a broker off this machine (kafka:9092)'),
      ]);
      expect(problemsOf({ KAFKA_BROKERS: '127.0.0.1:9092,10.0.0.7:9092', KAFKA_SECURITY_PROTOCOL: 'PLAINTEXT' })).toEqual([
        expect.stringContaining('(10.0.0.7:9092)'),
      ]);
    });

    it('reads SASL_SSL with the service principal, the mechanism and the CA file', () => {
      const reader = new ConfigReader({
        KAFKA_BROKERS: 'kafka:9092',
        KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
        KAFKA_SASL_USERNAME: 'payments',
        KAFKA_SASL_PASSWORD: 's3cret',
        KAFKA_SSL_CA_FILE: '/etc/mp/kafka-ca/ca.pem',
      });
      expect(readKafkaConnectionConfig(reader).kafkaSecurity).toEqual({
        mechanism: 'SCRAM-SHA-512',
        username: 'payments',
        password: 's3cret',
        caFile: '/etc/mp/kafka-ca/ca.pem',
      });
      expect(() => reader.assertValid()).not.toThrow();
    });

    it('names a missing principal, a missing password and an unknown protocol or mechanism', () => {
      expect(problemsOf({ KAFKA_BROKERS: 'kafka:9092', KAFKA_SECURITY_PROTOCOL: 'SASL_SSL' })).toEqual([
        expect.stringContaining('KAFKA_SASL_USERNAME is required'),
        expect.stringContaining('KAFKA_SASL_PASSWORD is required'),
      ]);
      expect(problemsOf({ KAFKA_BROKERS: 'kafka:9092', KAFKA_SECURITY_PROTOCOL: 'SSL' })).toEqual(
        expect.arrayContaining([expect.stringContaining('KAFKA_SECURITY_PROTOCOL')]),
      );
      expect(
        problemsOf({
          KAFKA_BROKERS: 'kafka:9092',
          KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
          KAFKA_SASL_MECHANISM: 'PLAIN',
          KAFKA_SASL_USERNAME: 'a',
          KAFKA_SASL_PASSWORD: 'b',
        }),
      ).toEqual([expect.stringContaining('KAFKA_SASL_MECHANISM')]);
    });
  });
});
