import { ConsoleLogger, type ConsoleLoggerOptions, type LoggerService } from '@nestjs/common';
import { ConfigError, type LogFormat } from '@mp/shared-util-config';

/**
 * The logger a service hands to Nest, and through Nest's Logger to everything else in the
 * process (the Kafka client included, see MessagingModule). `json`: one JSON object per line
 * (level, time, context, message), what `npm start` writes to its log files; `pretty`: Nest's
 * readable lines, coloured only on a terminal.
 */
export function serviceLogger(format: LogFormat): LoggerService {
  return new ConsoleLogger(loggerOptions(format));
}

const loggerOptions = (format: LogFormat): ConsoleLoggerOptions => ({
  json: format === 'json',
  colors: format === 'pretty' && Boolean(process.stdout.isTTY),
  logLevels: ['log', 'warn', 'error'],
});

/**
 * Reports why a service could not start and exits 1. Called before a validated configuration
 * exists (the configuration may be what failed), so LOG_FORMAT is read as given: anything but
 * `json` prints readable lines.
 */
export function exitOnStartupFailure(error: unknown): never {
  const format: LogFormat = process.env['LOG_FORMAT']?.trim() === 'json' ? 'json' : 'pretty';
  const message = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  new ConsoleLogger('Bootstrap', loggerOptions(format)).error(message);
  process.exit(1);
}
