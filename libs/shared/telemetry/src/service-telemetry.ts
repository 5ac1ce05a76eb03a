import type { LoggerService } from '@nestjs/common';
import type { LogFormat } from '@mp/shared-util-config';
import { logProcessWarnings } from './process-warnings';
import { serviceLogger } from './service-logger';
import { startTracing } from './tracing';

/**
 * A service's telemetry, started first thing in its main.ts: tracing (exporter per
 * OTEL_TRACES_EXPORTER, off by default) and the logger to hand to NestFactory.create. HTTP
 * spans and request ids come from instrumentHttp on the app's Fastify instance. Node's own
 * process warnings go to the same log (logProcessWarnings).
 */
export function startServiceTelemetry(service: string, format: LogFormat, env: NodeJS.ProcessEnv = process.env): LoggerService {
  startTracing(service, env);
  const logger = serviceLogger(format, service);
  logProcessWarnings(logger);
  return logger;
}
