export { InternalErrorFilter } from './internal-error.filter';
