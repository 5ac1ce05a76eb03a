/**
 * Goal: the merchant SDK is a package a merchant installs outside this repository (libs/sdk/README.md):
 * `npm pack` gives a tarball with its own package.json, type declarations, README, licence and
 * changelog and no path alias, and, installed into an empty folder, it calls the running system.
 * Method: the SDK's package build (the `package` target's commands), `npm pack`, `npm install`
 * of the tarball into a fresh folder (its three dependencies from npm's cache or the registry),
 * then a plain Node script there that reads the balances and creates a pay-in.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignedClient, SystemUnderTest, workspaceRoot } from '@mp/shared-testing';

const PACKAGE_DIR = join(workspaceRoot, 'dist/packages/merchant-sdk');

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
}

/** Every file under `directory`, relative to it. */
function filesUnder(directory: string, prefix = ''): string[] {
  return readdirSync(join(directory, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(directory, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}

describe('the merchant SDK as an installed package', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    merchant = await system.createClient('SDK package shop');
    // The `package` target of libs/sdk/project.json, step by step.
    rmSync(PACKAGE_DIR, { recursive: true, force: true });
    run(process.execPath, [join(workspaceRoot, 'node_modules/typescript/bin/tsc'), '-p', 'libs/sdk/tsconfig.lib.json'], workspaceRoot);
    for (const file of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE']) copyFileSync(join(workspaceRoot, 'libs/sdk', file), join(PACKAGE_DIR, file));
    const packs = mkdtempSync(join(tmpdir(), 'mp-sdk-tgz-'));
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', packs], PACKAGE_DIR)) as Array<{ filename: string }>;
    tarball = join(packs, packed[0]?.filename ?? '');
    project = mkdtempSync(join(tmpdir(), 'mp-sdk-merchant-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'a-merchant-shop', version: '1.0.0', private: true }));
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], project);
  }, 300_000);
  afterAll(async () => system?.stop());

  it('holds its package.json, type declarations, README, licence and changelog, and no path alias', () => {
    const installed = join(project, 'node_modules/@mp/merchant-sdk');
    const files = filesUnder(installed);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'CHANGELOG.md',
        'LICENSE',
        join('dist', 'index.js'),
        join('dist', 'index.d.ts'),
        join('dist', 'cli.js'),
      ]),
    );
    const javascript = files
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(join(installed, file), 'utf8'))
      .join('\n');
    expect(javascript).not.toMatch(/require\("@mp\//);
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))).toMatchObject({ name: '@mp/merchant-sdk', types: './dist/index.d.ts' });
  });

  it('calls the running system from an empty project: balances, then a pay-in it can read back', () => {
    const script = `
      const { MerchantClient } = require('@mp/merchant-sdk');
      const client = new MerchantClient({ baseUrl: process.env.BASE_URL, merchantId: process.env.MERCHANT_ID, apiSecret: process.env.API_SECRET });
      (async () => {
        const balances = await client.merchant.balances();
        const created = await client.payments.createIncoming({ order_id: 'sdk-package-1', amount: 1500.5, currency: 'RUB', country: 'RU', callback_url: 'https://shop.example/callbacks' });
        const read = await client.payments.status('sdk-package-1');
        console.log(JSON.stringify({ balances: Array.isArray(balances.settlement), created: created.status, read: read.order_id }));
      })().catch((error) => { console.error(error); process.exit(1); });`;
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'shop.js'), script);
    const output = run(process.execPath, ['shop.js'], project, {
      PATH: process.env['PATH'] ?? '',
      BASE_URL: system.gatewayUrl,
      MERCHANT_ID: merchant.credentials.merchantId,
      API_SECRET: merchant.credentials.apiSecret,
    });
    expect(JSON.parse(output.trim().split('\n').pop() ?? '{}')).toEqual({ balances: true, created: 'PENDING', read: 'sdk-package-1' });
  });
});
