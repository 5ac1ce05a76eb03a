/**
 * Goal: no service boots on a secret this repository ever published as an example (docs/operations/secrets.md):
 * each one refuses, names the setting and exits 1 before it connects to anything, and so does
 * the bootstrap command that makes the first operator. Method: every catalog service's built
 * entry point, and create-operator, started with a published master key, service-token key and
 * database password in their environment.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtEntryPoint, workspaceRoot } from '@mp/shared-testing';

// Values that .env.example and the dev overlay used to ship: public, in the repository's history.
const PUBLISHED = {
  MERCHANT_SECRETS_MASTER_KEY: 'bG9jYWwtZGVtby1tZXJjaGFudC1tYXN0ZXIta2V5ISE=',
  SERVICE_TOKEN_PRIVATE_KEY: 'MC4CAQAwBQYDK2VwBCIEIC5rtCFfMjJoj2nR21n9gsJYmseQLN6zBpeM0UfIFiYB',
  GATEWAY_DATABASE_URL: 'postgres://gateway:local-demo-gateway-password@127.0.0.1:9/gateway',
};

const services: Array<{ name: string; entry: string }> = JSON.parse(readFileSync(join(workspaceRoot, 'deploy/catalog/services.json'), 'utf8')).services;

function runBuilt(source: string, args: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtEntryPoint(source), ...args], {
      cwd: workspaceRoot,
      env: { PATH: process.env['PATH'] ?? '', LOG_FORMAT: 'json', ...PUBLISHED },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('boot with a published example secret', () => {
  it.each(services.map((service) => [service.name, service.entry]))('%s refuses to start and names the setting', async (_name, entry) => {
    const { code, output } = await runBuilt(entry);
    expect(code).toBe(1);
    expect(output).toContain('SERVICE_TOKEN_PRIVATE_KEY holds an example value published in this repository');
    expect(output).toContain('MERCHANT_SECRETS_MASTER_KEY holds an example value published in this repository');
  });

  it('the bootstrap command refuses to make an operator', async () => {
    const { code, output } = await runBuilt('apps/gateway/src/create-operator.ts', ['--name', 'Mallory']);
    expect(code).toBe(1);
    expect(output).toContain('GATEWAY_DATABASE_URL holds an example value published in this repository');
  });
});
