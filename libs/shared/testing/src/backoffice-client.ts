import { spawn } from 'node:child_process';
import { rawRequest, type TestResponse } from './signed-client';
import { builtEntryPoint, type SystemUnderTest } from './system-under-test';
import { workspaceRoot } from './workspace-root';

/** An operator's or agent's client of the back-office API (bearer token). */
export class BackofficeClient {
  constructor(
    private readonly baseUrl: string,
    readonly token: string,
  ) {}

  request<T = any>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: object | Buffer,
    headers: Record<string, string> = {},
  ): Promise<TestResponse<T>> {
    const bytes = body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const contentType: Record<string, string> =
      body === undefined ? {} : { 'content-type': Buffer.isBuffer(body) ? 'application/octet-stream' : 'application/json' };
    return rawRequest<T>(this.baseUrl, method, path, { authorization: `Bearer ${this.token}`, ...contentType, ...headers }, bytes);
  }
}

export interface RegisteredAgent {
  agentId: string;
  client: BackofficeClient;
}

/** Creates an operator with the bootstrap command, as an operator would on a new installation. */
export async function createOperator(system: SystemUnderTest, name = 'Test operator'): Promise<BackofficeClient> {
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [builtEntryPoint('apps/gateway/src/create-operator.ts'), '--name', name, '--json'], {
      cwd: workspaceRoot,
      env: system.environmentOf('gateway'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`create-operator exited with ${code}: ${stderr}`))));
  });
  const { token } = JSON.parse(output.trim().split('\n').pop() ?? '{}') as { token: string };
  return new BackofficeClient(system.gatewayUrl, token);
}

/** Registers a payment agent through the operator API. */
export async function registerAgent(
  system: SystemUnderTest,
  operator: BackofficeClient,
  serves: Array<{ method: string; country: string; currency: string }>,
  profile: { display_name?: string; payment_details?: string } = {},
): Promise<RegisteredAgent> {
  const response = await operator.request('POST', '/backoffice/v1/agents', {
    display_name: profile.display_name ?? 'Ivan P.',
    payment_details: profile.payment_details ?? 'Card 2200 1234 5678 9012, Ivan P.',
    serves,
  });
  if (response.status !== 201) throw new Error(`agent registration failed: ${response.status} ${response.text}`);
  return { agentId: response.body.agent_id, client: new BackofficeClient(system.gatewayUrl, response.body.token) };
}
