export { ConfigError, ConfigReader, readKafkaConnectionConfig, type Environment, type KafkaConnectionConfig } from './config';
