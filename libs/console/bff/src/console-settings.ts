import { isAbsolute, join } from 'node:path';
import type { ConfigReader } from '@mp/shared-util-config';
import type { SecretKeyring } from '@mp/shared-util-secret-box';

/** The console's part of the gateway's config, validated at boot with the rest. */
export interface ConsoleConfig {
  /** CONSOLE_ASSETS_DIR: the SPA's built bundle (index.html and assets/). */
  assetsDir: string;
  /** CONSOLE_SESSION_IDLE_MINUTES: a session unused this long ends. */
  sessionIdleMinutes: number;
  /** CONSOLE_SESSION_MAX_HOURS: a session ends this long after sign-in, used or not. */
  sessionMaxHours: number;
}

/** What the console module needs from the gateway's config. */
export interface ConsoleSettings extends ConsoleConfig {
  /** Seals agents' and operators' bearer tokens in session rows; opens merchants' API secrets to sign their calls. */
  secretsKeyring: SecretKeyring;
  /** Readiness of the services the gateway calls, for the operators' health view. */
  serviceUrls: Record<'payments' | 'ledger' | 'disputes' | 'withdrawals' | 'callbacks', string>;
  healthCheckTimeoutMs: number;
}

export const CONSOLE_SETTINGS = Symbol('CONSOLE_SETTINGS');

/** The bundle `nx run console:build` writes, under the workspace root (the image stages it beside service.js). */
export const DEFAULT_CONSOLE_ASSETS_DIR = 'dist/apps/console/public';

export function readConsoleConfig(reader: ConfigReader, workingDirectory = process.cwd()): ConsoleConfig {
  const assetsDir = reader.string('CONSOLE_ASSETS_DIR', {
    default: DEFAULT_CONSOLE_ASSETS_DIR,
    description: "the console's built bundle, relative to the working directory ([console](console.md))",
  });
  const sessionIdleMinutes = reader.integer('CONSOLE_SESSION_IDLE_MINUTES', {
    default: 30,
    min: 1,
    max: 24 * 60,
    description: 'a console session ends after this long unused',
  });
  const sessionMaxHours = reader.integer('CONSOLE_SESSION_MAX_HOURS', {
    default: 12,
    min: 1,
    max: 7 * 24,
    description: 'a console session ends this long after sign-in',
  });
  if (sessionIdleMinutes > sessionMaxHours * 60)
    reader.problem('CONSOLE_SESSION_IDLE_MINUTES must not exceed CONSOLE_SESSION_MAX_HOURS: a session cannot idle longer than it lives');
  return { assetsDir: isAbsolute(assetsDir) ? assetsDir : join(workingDirectory, assetsDir), sessionIdleMinutes, sessionMaxHours };
}
