import type { LoggerService } from '@nestjs/common';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import pino, { type DestinationStream } from 'pino';
import { ConfigError, type LogFormat } from '@mp/shared-util-config';
import { REDACTED_LOG_PATHS } from './redaction';
import { telemetryLogFields } from './telemetry-context';

export interface ServiceLogOptions {
  /** The app, e.g. `payments`: every line says which service wrote it. */
  service?: string;
  format: LogFormat;
  /** Where lines go; standard output unless given (tests capture lines here). */
  destination?: DestinationStream;
}

/**
 * The one log format of every service: pino, one JSON object per line —
 * `{"level":"info","time":"…","service":"payments","context":"Bootstrap","message":"…"}` plus
 * `request_id` / `correlation_id` / `trace_id` whenever the line is written while handling an
 * HTTP request or a message (read from the telemetry context by pino's mixin, so no call site
 * passes them), with secrets redacted by path (REDACTED_LOG_PATHS).
 */
export function createPinoLogger(options: ServiceLogOptions): pino.Logger {
  return pino(
    {
      level: 'info',
      base: options.service ? { service: options.service } : {},
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: telemetryLogFields,
      redact: { paths: REDACTED_LOG_PATHS },
    },
    // Buffered writes (up to 4 KiB, or 100 ms): one write(2) for many lines instead of one per
    // line (the quick bench's status read went from 1.67 to 1.35 CPU-ms). pino flushes the buffer
    // synchronously on process exit, so a graceful stop or process.exit loses nothing; a SIGKILL
    // loses at most the last 100 ms of lines.
    options.destination ?? (options.format === 'pretty' ? new PrettyLines(process.stdout) : bufferedStandardOutput()),
  );
}

const LOG_BUFFER_BYTES = 4_096;
const LOG_FLUSH_INTERVAL_MS = 100;

function bufferedStandardOutput(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  // A quiet service's last lines still reach the log within the interval.
  setInterval(() => destination.flush(), LOG_FLUSH_INTERVAL_MS).unref();
  return destination;
}

/**
 * The logger a service hands to Nest (NestFactory.create's `logger`), and through Nest's
 * Logger to everything else in the process, the Kafka client included (see MessagingModule).
 * nestjs-pino adapts Nest's logger calls (message, context, error stacks) to pino; its HTTP
 * middleware is not used, the telemetry context is set by instrumentHttp instead (Fastify hooks,
 * which also start the request's span).
 */
export function serviceLogger(format: LogFormat, service?: string): LoggerService {
  return new NestPinoLogger(new PinoLogger({ pinoHttp: { logger: createPinoLogger({ service, format }) } }), {});
}

/**
 * Reports why a service could not start and exits 1. Called before a validated configuration
 * exists (the configuration may be what failed), so LOG_FORMAT is read as given: anything but
 * `json` prints readable lines.
 */
export function exitOnStartupFailure(error: unknown): never {
  const format: LogFormat = process.env['LOG_FORMAT']?.trim() === 'json' ? 'json' : 'pretty';
  const message = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  // One line and exit: written synchronously, with no buffer or flush timer to set up first.
  const destination = format === 'pretty' ? undefined : pino.destination({ dest: 1, sync: true });
  createPinoLogger({ format, destination }).error({ context: 'Bootstrap' }, message);
  process.exit(1);
}

const LEVEL_LABELS: Record<string, string> = { trace: 'TRACE', debug: 'DEBUG', info: 'LOG', warn: 'WARN', error: 'ERROR', fatal: 'FATAL' };

/**
 * LOG_FORMAT=pretty: each JSON line as one readable line, `time LEVEL [context] message
 * key=value…`, an error's stack below it. pino-pretty is not installed and would run in a
 * worker thread as a transport; for a developer's terminal these few lines do.
 */
export class PrettyLines implements DestinationStream {
  constructor(private readonly out: { write(text: string): unknown }) {}

  write(line: string): void {
    const { time, level, context, message, service: _service, err, ...fields } = JSON.parse(line) as Record<string, unknown>;
    const extra = Object.entries(fields).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
    const stack = err && typeof err === 'object' && 'stack' in err ? `\n${String(err.stack)}` : '';
    this.out.write(
      `${String(time)} ${(LEVEL_LABELS[String(level)] ?? String(level)).padEnd(5)} ${context ? `[${String(context)}] ` : ''}${String(message ?? '')}${extra.length ? ` ${extra.join(' ')}` : ''}${stack}\n`,
    );
  }
}
