import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { serializeApiDocument } from './api-document';
import { buildAgentApiDocument, buildBackofficeApiDocument } from './backoffice-api.document';
import { AGENT_API_DOCUMENT_FILE, BACKOFFICE_API_DOCUMENT_FILE } from './backoffice-api.file';
import { assertCheckedIn } from './checked-in-document';

type Schema = { $ref?: string; additionalProperties?: boolean; items?: Schema; properties?: Record<string, Schema> };
type Operation = {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string }>;
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
};

const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));

describe.each([
  { api: 'agent', file: AGENT_API_DOCUMENT_FILE, build: buildAgentApiDocument, prefix: '/backoffice/v1/agent/', operations: 10 },
  { api: 'back-office (operator)', file: BACKOFFICE_API_DOCUMENT_FILE, build: buildBackofficeApiDocument, prefix: '/backoffice/v1/', operations: 55 },
])('the $api OpenAPI description', ({ file, build, prefix, operations }) => {
  let generated: string;
  let document: Document;

  beforeAll(async () => {
    generated = serializeApiDocument(await build());
    document = JSON.parse(generated) as Document;
  });

  it(`is the checked-in ${file} (after changing its controllers, run \`npm run openapi\` and commit it)`, () => {
    assertCheckedIn(file, generated);
  });

  it('is OpenAPI 3.0.4, every operation under its prefix, named once and authenticated by a Bearer token', () => {
    expect(document.openapi).toBe('3.0.4');
    expect(document.components.securitySchemes).toEqual({ bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }) });
    const all = operationsOf(document);
    expect(all).toHaveLength(operations);
    expect(all.filter(({ path }) => !path.startsWith(prefix))).toEqual([]);
    if (!prefix.endsWith('/agent/')) expect(all.filter(({ path }) => path.startsWith('/backoffice/v1/agent/'))).toEqual([]);
    expect(all.filter(({ operation }) => JSON.stringify(operation.security) !== JSON.stringify([{ bearer: [] }])).map(({ path }) => path)).toEqual([]);
    const ids = all.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("gives every operation its success status and the bearer errors with the error catalogue's statuses", () => {
    for (const { path, method, operation } of operationsOf(document)) {
      const statuses = Object.keys(operation.responses);
      expect([path, method, statuses.some((status) => /^2\d\d$/.test(status))]).toEqual([path, method, true]);
      expect([path, operation.responses['401']?.description]).toEqual([path, expect.stringContaining('CREDENTIAL_REVOKED')]);
      expect([path, operation.responses['403']?.description]).toEqual([path, expect.stringContaining('FORBIDDEN')]);
      expect(statuses).toContain('default');
    }
  });

  it('closes every request body, and the objects in it, to unknown fields, as the server refuses them', () => {
    const bodies = operationsOf(document).flatMap(({ operation }) =>
      Object.values(operation.requestBody?.content ?? {}).map(({ schema }) => schema.$ref ?? ''),
    );
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    for (const ref of bodies) expect([ref, document.components.schemas[ref.replace('#/components/schemas/', '')]?.additionalProperties]).toEqual([ref, false]);
  });

  it('finds no errors in redocly lint (rule choices in redocly.yaml)', () => {
    const cli = require.resolve('@redocly/cli/bin/cli.js');
    const run = spawnSync(process.execPath, [cli, 'lint', file, '--format=stylish'], {
      cwd: join(__dirname, '..', '..', '..', '..', '..'),
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      timeout: 120_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect({ exitCode: run.status, problems: output.split('\n').filter((line) => /\b(error|warning)\b/.test(line)) }).toEqual({ exitCode: 0, problems: [] });
  });
});

it('describes the nested objects of the back-office bodies, not strings (agent areas, catalog entries)', async () => {
  const document = JSON.parse(serializeApiDocument(await buildBackofficeApiDocument())) as Document;
  expect(document.components.schemas['AgentProfileBody'].properties?.['serves'].items?.$ref).toBe('#/components/schemas/AgentServiceAreaBody');
  expect(document.components.schemas['PutMethodsBody'].properties?.['entries'].items?.$ref).toBe('#/components/schemas/MethodEntryBody');
  expect(document.components.schemas['AgentServiceAreaBody'].additionalProperties).toBe(false);
});
