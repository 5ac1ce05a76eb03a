import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from './config';

/**
 * A command's arguments, parsed by Node's `parseArgs` (strict: an unknown flag or a missing
 * value is refused). Its errors become a ConfigError, so the command prints them like any other
 * configuration problem instead of a stack trace.
 */
export function parseCommandLine<const T extends Omit<ParseArgsConfig, 'strict'>>(config: T) {
  try {
    return parseArgs({ ...config, strict: true as const });
  } catch (error) {
    // By its code, not `instanceof TypeError`: the error may come from another realm (a jest VM context).
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    if (String(code).startsWith('ERR_PARSE_ARGS')) throw new ConfigError([String(message)]);
    throw error;
  }
}
