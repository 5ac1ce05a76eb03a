export { ConfigError, ConfigReader, type Environment } from './config';
