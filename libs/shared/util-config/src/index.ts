export { parseCommandLine } from './command-line';
export { ConfigError, ConfigReader, LOG_FORMATS, readKafkaConnectionConfig, readLogFormat, type Environment, type KafkaConnectionConfig, type KafkaSecurityConfig, type LogFormat } from './config';
