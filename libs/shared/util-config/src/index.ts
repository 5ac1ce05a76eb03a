export { parseCommandLine } from './command-line';
export { isPublishedSecret, settingsWithPublishedSecrets } from './published-secrets';
export { ConfigError, ConfigReader, LOG_FORMATS, readKafkaConnectionConfig, readLogFormat, type Environment, type KafkaConnectionConfig, type KafkaSecurityConfig, type LogFormat } from './config';
