export { parseCommandLine } from './command-line';
export { isPublishedSecret, settingsWithPublishedSecrets } from './published-secrets';
export { internalTlsOptions, readInternalTlsConfig, type InternalTls, type InternalTlsConfig } from './internal-tls';
export { ConfigError, ConfigReader, LOG_FORMATS, readKafkaConnectionConfig, readLogFormat, type Environment, type KafkaConnectionConfig, type KafkaSecurityConfig, type LogFormat } from './config';
