export { ConsoleBffModule } from './console-bff.module';
export { CONSOLE_CONTENT_SECURITY_POLICY } from './console-http';
export { CONSOLE_METRIC_NAMES } from './console-metrics';
export { DEFAULT_CONSOLE_ASSETS_DIR, readConsoleConfig, type ConsoleConfig, type ConsoleSettings } from './console-settings';
export { SESSION_COOKIE_NAME } from './session-cookie';
