export { createPinoLogger, exitOnStartupFailure, PrettyLines, serviceLogger, type ServiceLogOptions } from './service-logger';
export { REDACTED_LOG_PATHS } from './redaction';
export { currentTelemetryContext, runInTelemetryContext, telemetryLogFields, type TelemetryContext } from './telemetry-context';
export { currentTraceparent, enterSpan, flushTraces, outgoingTraceHeaders, runInSpan, startSpan, startTracing, type TraceHeaders } from './tracing';
export { CORRELATION_ID_HEADER, handleInMessageContext, messageTelemetryHeaders, TRACEPARENT_HEADER, type TracedMessage } from './message-telemetry';
export { instrumentHttp, type HttpTelemetryOptions } from './http-telemetry';
export { startServiceTelemetry } from './service-telemetry';
export { ignoreProcessWarnings, logProcessWarnings, printProcessWarningsFiltered, type WarningFilter } from './process-warnings';
