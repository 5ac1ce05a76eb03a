import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from './workspace-root';

/** The parts of an OpenAPI 3.0 document this validator reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
}

interface OpenApiOperation {
  operationId?: string;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** What the validator needs of an answer. */
export interface AnswerToValidate {
  method: string;
  /** As sent on the wire, query string included. */
  path: string;
  status: number;
  contentType: string | null;
  /** The x-request-id header, which the description promises on every answer. */
  requestId: string | null;
  text: string;
}

/** Paths that are the documentation itself, not operations of the contract. */
const DOCUMENTATION_PATHS = /^\/v2\/(openapi\.json|docs(\/.*)?)$/;
const SCHEMAS_ID = 'openapi-schemas';
const ERROR_RESPONSE_REF = `${SCHEMAS_ID}#/$defs/ErrorResponse`;

/**
 * Checks a /v2 answer against an OpenAPI 3.0 description: the operation by method and path
 * template (a static segment wins over a parameter, as in the router), the response by status
 * (else `default`), and a JSON body by its schema with ajv. Paths and methods the description
 * does not have may only be answered with the error body (404, 405, or 400 for a path that is not
 * valid percent-encoding). Hand-written rather than a library: the ones that validate responses
 * against OpenAPI need a framework's request/response objects or pull in much more than this.
 */
export class OpenApiResponseValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp; parameters: number }>;

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema({ $id: SCHEMAS_ID, $defs: toJsonSchema(document.components?.schemas ?? {}) });
    this.templates = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(
          `^${template
            .split('/')
            .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : escapeRegExp(segment)))
            .join('/')}$`,
        ),
        parameters: (template.match(/\{/g) ?? []).length,
      }))
      .sort((left, right) => left.parameters - right.parameters || right.template.length - left.template.length);
  }

  /** Throws an Error naming the operation, the status and what disagrees; returns quietly otherwise. */
  check(answer: AnswerToValidate): void {
    const path = answer.path.split('?')[0];
    if (!path.startsWith('/v2/') || DOCUMENTATION_PATHS.test(path)) return;
    // An empty 502 or 504 is what a proxy in front says when no gateway answered (the tests'
    // round-robin proxy while a replica is down): the gateway itself never sends either.
    if ((answer.status === 502 || answer.status === 504) && answer.text === '') return;
    const method = answer.method.toLowerCase();
    const where = `${answer.method} ${path} answered ${answer.status}`;
    if (!answer.requestId) throw new Error(`OpenAPI: ${where} without the x-request-id header every answer has`);
    const template = this.templates.find(({ pattern }) => pattern.test(path))?.template;
    const operation = template ? this.document.paths[template][method] : undefined;
    if (!template || !operation) {
      const allowed = template ? [404, 405] : [400, 404, 405];
      if (!allowed.includes(answer.status))
        throw new Error(`OpenAPI: ${where}, but openapi.json has no ${template ? `${answer.method} operation on ${template}` : 'path matching it'}`);
      this.checkJson(`${where} (no such operation)`, ERROR_RESPONSE_REF, answer);
      return;
    }
    const name = `${where} (${operation.operationId ?? `${method} ${template}`})`;
    const response = operation.responses[String(answer.status)] ?? operation.responses.default;
    if (!response) throw new Error(`OpenAPI: ${name}: status ${answer.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
    const mediaType = (answer.contentType ?? '').split(';')[0].trim();
    const content = response.content ?? {};
    if (Object.keys(content).length === 0) return;
    if (!(mediaType in content))
      throw new Error(`OpenAPI: ${name}: content-type ${mediaType || 'none'} is not documented (documented: ${Object.keys(content).join(', ')})`);
    const schema = content[mediaType].schema;
    if (mediaType === 'application/json' && schema) this.checkJson(name, JSON.stringify(schema), answer, schema);
  }

  private checkJson(name: string, key: string, answer: AnswerToValidate, schema: unknown = { $ref: ERROR_RESPONSE_REF }): void {
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      throw new Error(`OpenAPI: ${name}: the body is not JSON: ${answer.text.slice(0, 200)}`);
    }
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(schema) as object);
      this.compiled.set(key, validate);
    }
    if (!validate(body))
      throw new Error(
        `OpenAPI: ${name}: the body disagrees with openapi.json: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}\nbody: ${answer.text.slice(0, 1000)}`,
      );
  }
}

/**
 * OpenAPI 3.0 schema → JSON Schema for ajv: `nullable: true` becomes "this, or null" (3.0 has no
 * null type; ajv's own `nullable` keyword needs `type` beside it, which `allOf: [$ref]` lacks),
 * and component references point into the schemas ajv was given.
 */
export function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  const converted = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' ? value.replace('#/components/schemas/', `${SCHEMAS_ID}#/$defs/`) : toJsonSchema(value),
    ]),
  );
  return nullable === true ? { anyOf: [converted, { type: 'null' }] } : converted;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

let checkedInValidator: OpenApiResponseValidator | null = null;

/** The validator of the checked-in openapi.json, read once per test process. */
export function merchantApiValidator(): OpenApiResponseValidator {
  checkedInValidator ??= new OpenApiResponseValidator(JSON.parse(readFileSync(join(workspaceRoot, 'openapi.json'), 'utf8')) as OpenApiDocument);
  return checkedInValidator;
}
