import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { workspaceRoot } from './workspace-root';
const screenshotDirectory = join(workspaceRoot, '.local/test-logs');

/**
 * Debian's Chromium, not a browser Playwright downloads: CI machines get it from apt like the
 * rest of the toolchain (deploy/local/ensure-chromium.sh), and nothing is fetched at test time.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** A small phone held upright (iPhone SE / mini width): the narrowest screen the payer page must fit. */
export const PHONE_VIEWPORT = { width: 375, height: 800 } as const;

/**
 * Flags for a quiet, reproducible browser: no sandbox (tests run as root in containers), no GPU,
 * and none of the background traffic (updates, sync, QUIC probes) a test must not depend on.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Starts Chromium headless. Every launch gets a fresh temporary profile from Playwright (it
 * refuses --user-data-dir in launch() and deletes its own profile on close), so no cookies,
 * cache or storage carry over between tests.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: run deploy/local/ensure-chromium.sh (apt-get install chromium) first`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** A page in a context of its own, sized and behaving like a phone (touch, device pixel ratio 2). */
export async function openPhonePage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: PHONE_VIEWPORT, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  return context.newPage();
}

/** Saves a full-page screenshot as `.local/test-logs/<name>.png`, next to the service logs, and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDirectory, { recursive: true });
  const path = join(screenshotDirectory, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
