import { assertCheckedIn } from './checked-in-document';
import { MERCHANT_API_DOCUMENT_FILE } from './merchant-api.file';
import { buildMerchantApiDocument, serializeMerchantApiDocument } from './merchant-api.document';

describe('the /v2 OpenAPI description', () => {
  let generated: string;

  beforeAll(async () => {
    generated = serializeMerchantApiDocument(await buildMerchantApiDocument());
  });

  it('is the checked-in openapi.json (after changing the merchant API, run `npm run openapi` and commit openapi.json)', () => {
    assertCheckedIn(MERCHANT_API_DOCUMENT_FILE, generated);
  });

  it('is OpenAPI 3.0.4 and documents only the signed /v2 merchant API', () => {
    const document = JSON.parse(generated) as { openapi: string; paths: Record<string, Record<string, { operationId: string; security?: unknown }>> };
    expect(document.openapi).toBe('3.0.4');
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.filter(({ path }) => !path.startsWith('/v2/'))).toEqual([]);
    expect(operations.filter(({ operation }) => !operation.security)).toEqual([]);
    // Spec 4.1's sixteen endpoints, each once.
    const ids = operations.map(({ operation }) => operation.operationId);
    for (const id of [
      'createIncomingPayment',
      'createOutgoingPayment',
      'getPaymentStatus',
      'listIncomingPayments',
      'listOutgoingPayments',
      'cancelPayment',
      'listPayoutReceipts',
      'getMerchant',
      'getBalances',
      'listMethods',
      'createWithdrawal',
      'listWithdrawals',
      'getWithdrawal',
      'openDispute',
      'listDisputes',
      'getDispute',
    ]) {
      expect(ids.filter((operationId) => operationId === id)).toEqual([id]);
    }
  });

  it('gives every error code the status of the error catalogue', () => {
    const document = JSON.parse(generated) as { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };
    const postIncoming = document.paths['/v2/payments/incoming'].post.responses;
    expect(postIncoming['409'].description).toContain('DUPLICATE_ORDER');
    expect(postIncoming['401'].description).toContain('INVALID_SIGNATURE');
    expect(postIncoming['503'].description).toContain('SERVICE_UNAVAILABLE');
  });

  // What npm run fuzz found the description getting wrong (docs/operations/fuzzing.md, Findings).
  it('describes overlap_hours as a whole number or null, every cursor as non-empty, and links created ids to their reads', () => {
    type Schema = { type?: string; nullable?: boolean; minLength?: number; properties?: Record<string, Schema> };
    type Operation = { parameters?: Array<{ name: string; schema: Schema }>; responses: Record<string, { links?: Record<string, { operationId: string }> }> };
    const document = JSON.parse(generated) as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
    expect(document.components.schemas['RotateSecretBody'].properties?.['overlap_hours']).toMatchObject({ type: 'integer', nullable: true });
    const cursors = [
      ...Object.values(document.components.schemas).flatMap((schema) => (schema.properties?.['cursor'] ? [schema.properties['cursor']] : [])),
      ...Object.values(document.paths).flatMap((methods) =>
        Object.values(methods).flatMap((operation) => (operation.parameters ?? []).filter(({ name }) => name === 'cursor').map(({ schema }) => schema)),
      ),
    ];
    expect(cursors.length).toBeGreaterThanOrEqual(4);
    for (const cursor of cursors) expect(cursor.minLength).toBe(1);
    const linked = (path: string) => Object.values(document.paths[path].post.responses['201'].links ?? {}).map(({ operationId }) => operationId);
    expect(linked('/v2/payments/incoming').sort()).toEqual(['cancelPayment', 'getPaymentStatus']);
    expect(linked('/v2/disputes')).toEqual(['getDispute']);
  });

  it('closes every request body to unknown fields, as the server refuses them (endpoints.md)', () => {
    type Schema = { $ref?: string; allOf?: Schema[]; additionalProperties?: boolean; properties?: Record<string, Schema> };
    const document = JSON.parse(generated) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
      components: { schemas: Record<string, Schema> };
    };
    const bodies = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).flatMap((operation) =>
        Object.values(operation.requestBody?.content ?? {}).map(({ schema }) => schema.$ref ?? schema.allOf?.[0]?.$ref ?? ''),
      ),
    );
    expect(bodies.length).toBeGreaterThanOrEqual(10);
    for (const ref of bodies) expect([ref, document.components.schemas[ref.replace('#/components/schemas/', '')]?.additionalProperties]).toEqual([ref, false]);
  });
});
