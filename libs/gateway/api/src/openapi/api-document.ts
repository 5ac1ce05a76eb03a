import { Module, type Provider } from '@nestjs/common';
import { GUARDS_METADATA, INTERCEPTORS_METADATA, PARAMTYPES_METADATA, PIPES_METADATA, SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ErrorResponse } from './error.response';

type Constructor = abstract new (...args: never[]) => unknown;

/** One of the gateway's API descriptions: the controllers it documents and what the document says of itself. */
export interface ApiDocumentDefinition {
  readonly controllers: readonly Constructor[];
  /** From `DocumentBuilder`: title, description, version, servers, security schemes, tags. */
  readonly config: Omit<OpenAPIObject, 'paths'>;
  readonly extraModels?: readonly Constructor[];
  readonly callbacksByOperation?: Readonly<Record<string, object>>;
}

/**
 * Builds an OpenAPI 3.0.4 description from the controllers' decorators, without
 * infrastructure: Nest's `preview` mode reads the module graph but instantiates no provider,
 * so this runs in a unit test, in `npm run openapi` and at the gateway's boot alike.
 */
export async function buildApiDocument(definition: ApiDocumentDefinition): Promise<OpenAPIObject> {
  const app = await NestFactory.create(documentModuleOf(definition.controllers), new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  try {
    const document = SwaggerModule.createDocument(app, definition.config, {
      extraModels: [ErrorResponse, ...(definition.extraModels ?? [])] as Array<new () => unknown>,
    });
    return sortedKeys(withClosedRequestBodies(withCommonResponseParts(document, definition.callbacksByOperation ?? {}))) as OpenAPIObject;
  } finally {
    await app.close();
  }
}

/**
 * Only the documented controllers: the description must not depend on Kafka, PostgreSQL or
 * anything a provider would connect to. Preview mode instantiates nothing but still resolves
 * every constructor's tokens (controllers' and their guards'), so each token gets an empty
 * stand-in, found from Nest's own metadata so a new dependency needs no change here.
 */
function documentModuleOf(controllers: readonly Constructor[]): new () => unknown {
  @Module({ controllers: [...controllers] as Array<new () => unknown>, providers: standInsFor(controllers) })
  class ApiDocumentModule {}
  return ApiDocumentModule;
}

function standInsFor(controllers: readonly Constructor[]): Provider[] {
  const enhancers = controllers.flatMap((controller) => [
    controller,
    ...enhancersOf(controller),
    ...Object.getOwnPropertyNames(controller.prototype).flatMap((name) => enhancersOf(controller.prototype[name])),
  ]);
  const tokens = new Set<unknown>();
  for (const type of enhancers.filter((item): item is Constructor => typeof item === 'function')) {
    const declared = (Reflect.getMetadata(PARAMTYPES_METADATA, type) ?? []) as unknown[];
    const overrides = (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, type) ?? []) as Array<{ index: number; param: unknown }>;
    declared.forEach((token, index) => tokens.add(overrides.find((override) => override.index === index)?.param ?? token));
  }
  return [...tokens].filter((token) => token !== undefined && token !== Object).map((token) => ({ provide: token as string, useValue: {} }));
}

function enhancersOf(target: unknown): unknown[] {
  if (typeof target !== 'function') return [];
  return [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA].flatMap((key) => (Reflect.getMetadata(key, target) ?? []) as unknown[]);
}

const REQUEST_ID_HEADER = { description: "This request's id, also in error bodies: quote it to support", schema: { type: 'string' } };
const RETRY_AFTER_HEADER = { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } };

/** What every operation shares, added once here rather than on each handler: headers on every answer, callbacks. */
function withCommonResponseParts(document: OpenAPIObject, callbacksByOperation: Readonly<Record<string, object>>): OpenAPIObject {
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as Array<{
      operationId?: string;
      responses?: Record<string, { headers?: Record<string, unknown> }>;
      callbacks?: object;
    }>) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = {
          ...response.headers,
          'x-request-id': REQUEST_ID_HEADER,
          ...(status === '429' || status === '503' ? { 'Retry-After': RETRY_AFTER_HEADER } : {}),
        };
      }
      const callbacks = operation.operationId ? callbacksByOperation[operation.operationId] : undefined;
      if (callbacks) operation.callbacks = callbacks;
    }
  }
  return document;
}

/**
 * The server refuses unknown fields (400 VALIDATION_ERROR naming each, docs/api/endpoints.md), so
 * every request body's schema, and every object schema it references, says
 * additionalProperties: false; without it clients and fuzzers take extra fields for allowed.
 */
function withClosedRequestBodies(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, { type?: string; additionalProperties?: unknown }>;
  const close = (schema: unknown, seen: Set<string>): void => {
    if (!schema || typeof schema !== 'object') return;
    const ref = (schema as { $ref?: string }).$ref;
    if (ref) {
      const name = ref.replace('#/components/schemas/', '');
      if (seen.has(name) || !schemas[name]) return;
      seen.add(name);
      if (schemas[name].type === 'object') schemas[name].additionalProperties = false;
      close(schemas[name], seen);
      return;
    }
    for (const value of Object.values(schema)) close(value, seen);
  };
  const seen = new Set<string>();
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as Array<{ requestBody?: unknown }>) close(operation.requestBody, seen);
  }
  return document;
}

/** Stable key order, so the checked-in file changes only where the contract does. Arrays keep their order (it can mean something: enums, parameters). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
    );
  return value;
}

/** The checked-in file's exact text: 2-space indent and a trailing newline. */
export function serializeApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
