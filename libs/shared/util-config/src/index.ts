export { parseCommandLine } from './command-line';
export { isPublishedSecret, settingsWithPublishedSecrets } from './published-secrets';
export { internalTlsOptions, readInternalTlsConfig, type InternalTls, type InternalTlsConfig } from './internal-tls';
export {
  ConfigError,
  ConfigReader,
  describeConfiguration,
  LOG_FORMATS,
  readKafkaConnectionConfig,
  readLogFormat,
  readTestClockEnabled,
  type ConfigVariable,
  type Documented,
  type Environment,
  type KafkaConnectionConfig,
  type KafkaSecurityConfig,
  type LogFormat,
} from './config';
export { GENERATED_TABLE_BEGIN, GENERATED_TABLE_END, renderConfigurationTable, replaceGeneratedTable, type ServiceConfiguration } from './configuration-table';
