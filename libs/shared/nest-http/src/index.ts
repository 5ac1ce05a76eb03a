export { InternalErrorFilter } from './internal-error.filter';
export { exitOnStartupFailure, serviceLogger } from './service-logger';
