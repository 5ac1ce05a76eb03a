/**
 * The command-line parser of the scripts in tools/, deploy/ and bench/: Node's `parseArgs`,
 * strict, so an unknown flag or a missing value is refused with its message and the usage, and
 * exit code 2.
 */
import { parseArgs } from 'node:util';

export function parseCommandLine(config, usage) {
  try {
    return parseArgs({ ...config, strict: true });
  } catch (error) {
    if (!String(error?.code).startsWith('ERR_PARSE_ARGS')) throw error;
    console.error(`${error.message}\n${usage}`);
    process.exit(2);
  }
}
