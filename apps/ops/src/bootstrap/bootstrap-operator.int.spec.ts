/**
 * Goal: the ops image's bootstrap command makes a deployment's first operator once. A second run
 * is refused (exit 3) and prints no credential, --force overrides, two runs at once make one
 * operator, and the credential reaches exactly one place: the one output line, or (--secret) a
 * Kubernetes Secret with no token in the output; a credential that could not be delivered leaves
 * no operator behind. Method: the command's function against private databases of the test
 * PostgreSQL server migrated as init migrates them, its output captured; --secret against a
 * local stand-in of the Kubernetes API's Secret endpoint.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BackofficeCredentialStore } from '@mp/access-infrastructure';
import { GATEWAY_MIGRATIONS } from '@mp/gateway-api';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { BOOTSTRAP_EXIT, runBootstrapOperator } from './bootstrap-operator.command';
import type { KubernetesApi } from './kubernetes-secret';

interface Run {
  code: number;
  out: string[];
  err: string[];
}

async function bootstrap(dataSource: DataSource, args: string[], kubernetes: KubernetesApi | null = null): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runBootstrapOperator(
    args,
    { GATEWAY_DATABASE_URL: (dataSource.options as { url: string }).url },
    { out: (line) => out.push(line), err: (line) => err.push(line), kubernetes: () => kubernetes },
  );
  return { code, out, err };
}

const operators = async (dataSource: DataSource) =>
  (await dataSource.query(`SELECT operator_id, may_issue_operators FROM backoffice_credentials WHERE role = 'operator'`)) as Array<{
    operator_id: string;
    may_issue_operators: boolean;
  }>;
const tokensIn = (lines: string[]) => lines.join('\n').match(/bo_[A-Za-z0-9_-]{43}/g) ?? [];

describe('bootstrap-operator (ops image): the first operator, once', () => {
  const databases: DataSource[] = [];
  const database = async () => {
    const dataSource = await migratedPrivateDatabase('boot', GATEWAY_MIGRATIONS);
    databases.push(dataSource);
    return dataSource;
  };
  afterAll(async () => Promise.all(databases.map((dataSource) => dataSource.destroy())));

  it('makes the first operator and prints its working credential once; a second run is refused with no credential; --force overrides', async () => {
    const dataSource = await database();
    const first = await bootstrap(dataSource, ['--name', 'Alice', '--json']);
    expect(first.code).toBe(BOOTSTRAP_EXIT.created);
    expect(first.out).toHaveLength(1);
    const printed = JSON.parse(first.out[0]) as { token: string; operator_id: string };
    expect(tokensIn([...first.out, ...first.err])).toEqual([printed.token]);
    const signedIn = await new BackofficeCredentialStore(dataSource).authenticate(printed.token);
    expect(signedIn).toMatchObject({ ok: true, principal: { role: 'operator', operatorId: printed.operator_id, mayIssueOperators: true, name: 'Alice' } });

    const second = await bootstrap(dataSource, ['--name', 'Mallory']);
    expect(second.code).toBe(BOOTSTRAP_EXIT.refused);
    expect(second.out).toEqual([]);
    expect(second.err.join('\n')).toMatch(/refused: this deployment has 1 operator/);
    expect(tokensIn(second.err)).toEqual([]);
    expect(await operators(dataSource)).toEqual([{ operator_id: printed.operator_id, may_issue_operators: true }]);

    const forced = await bootstrap(dataSource, ['--name', 'Bob', '--force']);
    expect(forced.code).toBe(BOOTSTRAP_EXIT.created);
    expect(tokensIn(forced.out)).toHaveLength(1);
    expect(forced.err.join('\n')).toMatch(/--force: made another bootstrap operator beside 1 existing/);
    expect(await operators(dataSource)).toHaveLength(2);
  });

  it('makes one operator when two runs start at once (a retried Job beside the first)', async () => {
    const dataSource = await database();
    const runs = await Promise.all([bootstrap(dataSource, ['--name', 'Alice', '--json']), bootstrap(dataSource, ['--name', 'Alice', '--json'])]);
    expect(runs.map(({ code }) => code).sort()).toEqual([BOOTSTRAP_EXIT.created, BOOTSTRAP_EXIT.refused]);
    expect(await operators(dataSource)).toHaveLength(1);
  });

  it('answers bad arguments with exit 2 and makes nothing', async () => {
    const dataSource = await database();
    expect(await bootstrap(dataSource, [])).toMatchObject({ code: BOOTSTRAP_EXIT.usage, err: [expect.stringMatching(/--name is required/)] });
    expect(await bootstrap(dataSource, ['--name', 'A', '--bogus'])).toMatchObject({ code: BOOTSTRAP_EXIT.usage });
    expect(await bootstrap(dataSource, ['--name', 'A', '--secret', 'Not_A_Name'])).toMatchObject({
      code: BOOTSTRAP_EXIT.usage,
      err: [expect.stringMatching(/not a Kubernetes Secret name/)],
    });
    expect(await bootstrap(dataSource, ['--name', 'A', '--secret', 'first-operator'])).toMatchObject({
      code: BOOTSTRAP_EXIT.usage,
      err: [expect.stringMatching(/only inside a Kubernetes pod/)],
    });
    expect(await operators(dataSource)).toEqual([]);
  });

  describe('--secret: the credential goes to a Kubernetes Secret, never to the output', () => {
    let server: Server;
    const requests: Array<{ url: string; authorization: string | undefined; body: { metadata: { name: string }; data: Record<string, string> } }> = [];
    let answer = 201;
    beforeAll(async () => {
      server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        request.on('end', () => {
          requests.push({ url: request.url as string, authorization: request.headers.authorization, body: JSON.parse(body) });
          response.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
    const api = (): KubernetesApi => ({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 'sa-token', namespace: 'payments' });

    it('leaves no operator when the Secret cannot be written (it exists already), then writes it and prints no token', async () => {
      const dataSource = await database();
      answer = 409;
      const refusedByApi = await bootstrap(dataSource, ['--name', 'Alice', '--secret', 'first-operator'], api());
      expect(refusedByApi.code).toBe(BOOTSTRAP_EXIT.failed);
      expect(refusedByApi.err.join('\n')).toMatch(/no operator was made: Secret payments\/first-operator already exists/);
      expect(await operators(dataSource)).toEqual([]);

      answer = 201;
      const written = await bootstrap(dataSource, ['--name', 'Alice', '--secret', 'first-operator'], api());
      expect(written.code).toBe(BOOTSTRAP_EXIT.created);
      expect(tokensIn([...written.out, ...written.err])).toEqual([]);
      expect(written.out.join('\n')).toContain('Secret payments/first-operator');
      const request = requests[requests.length - 1];
      expect(request).toMatchObject({
        url: '/api/v1/namespaces/payments/secrets',
        authorization: 'Bearer sa-token',
        body: { metadata: { name: 'first-operator' } },
      });
      const token = Buffer.from(request.body.data['token'], 'base64').toString('utf8');
      expect(await new BackofficeCredentialStore(dataSource).authenticate(token)).toMatchObject({ ok: true, principal: { mayIssueOperators: true } });
    });
  });
});
