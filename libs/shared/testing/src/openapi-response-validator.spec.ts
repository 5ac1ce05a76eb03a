import { merchantApiValidator, OpenApiResponseValidator, type AnswerToValidate } from './openapi-response-validator';

const ERROR_BODY = JSON.stringify({ error: { code: 'ORDER_NOT_FOUND', message: 'No order A-1', details: [] }, request_id: 'req_1' });

const document = {
  paths: {
    '/v2/things/{id}': {
      get: {
        operationId: 'getThing',
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          default: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } },
        },
      },
    },
    '/v2/things/latest': {
      get: {
        operationId: 'getLatestThing',
        responses: {
          '200': { content: { 'application/json': { schema: { type: 'object', required: ['latest'], properties: { latest: { type: 'boolean' } } } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'note', 'at'],
        properties: {
          id: { type: 'string' },
          note: { type: 'string', nullable: true },
          at: { type: 'string', format: 'date-time' },
          child: { allOf: [{ $ref: '#/components/schemas/Child' }], nullable: true },
        },
      },
      Child: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
      ErrorResponse: {
        type: 'object',
        required: ['error', 'request_id'],
        properties: { error: { type: 'object', required: ['code', 'message', 'details'] }, request_id: { type: 'string' } },
      },
    },
  },
};

const answer = (overrides: Partial<AnswerToValidate>): AnswerToValidate => ({
  method: 'GET',
  path: '/v2/things/t1',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  requestId: 'req_1',
  text: JSON.stringify({ id: 't1', note: null, at: '2026-01-01T00:00:00.000Z', child: null }),
  ...overrides,
});

describe('OpenApiResponseValidator', () => {
  const validator = new OpenApiResponseValidator(document);

  it('accepts an answer that matches, nullable fields null included', () => {
    expect(() => validator.check(answer({}))).not.toThrow();
    expect(() => validator.check(answer({ text: JSON.stringify({ id: 't1', note: 'n', at: '2026-01-01T00:00:00Z', child: { n: 1 } }) }))).not.toThrow();
  });

  it('refuses a body of another shape, naming the operation, the status and the field', () => {
    expect(() => validator.check(answer({ text: JSON.stringify({ id: 't1', note: 5, at: 'yesterday' }) }))).toThrow(
      /GET \/v2\/things\/t1 answered 200 \(getThing\): the body disagrees with openapi\.json: .*note.*/,
    );
    expect(() => validator.check(answer({ text: JSON.stringify({ id: 't1', note: null, at: '2026-01-01T00:00:00Z', child: { n: 'x' } }) }))).toThrow(
      /child\/n must be integer/,
    );
  });

  it('prefers a static segment to a parameter, as the router does', () => {
    expect(() => validator.check(answer({ path: '/v2/things/latest', text: '{"latest":true}' }))).not.toThrow();
  });

  it('falls back to default for an undocumented status, and refuses a status with neither', () => {
    expect(() => validator.check(answer({ status: 404, text: ERROR_BODY }))).not.toThrow();
    expect(() => validator.check(answer({ path: '/v2/things/latest', status: 404, text: ERROR_BODY }))).toThrow(/status 404 is not documented/);
  });

  it('lets unknown paths and methods answer only with the error body of 404 or 405', () => {
    expect(() => validator.check(answer({ path: '/v2/nothing', status: 404, text: ERROR_BODY }))).not.toThrow();
    expect(() => validator.check(answer({ method: 'DELETE', status: 405, text: ERROR_BODY }))).not.toThrow();
    expect(() => validator.check(answer({ path: '/v2/nothing', status: 200, text: '{}' }))).toThrow(/has no path matching it/);
    expect(() => validator.check(answer({ method: 'DELETE', status: 405, text: '{"oops":true}' }))).toThrow(/disagrees/);
  });

  it('refuses an answer without x-request-id', () => {
    expect(() => validator.check(answer({ requestId: null }))).toThrow(/without the x-request-id header/);
  });

  it('refuses an undocumented content type and leaves other paths alone', () => {
    expect(() => validator.check(answer({ contentType: 'text/plain' }))).toThrow(/content-type text\/plain is not documented/);
    expect(() => validator.check(answer({ path: '/backoffice/v1/anything', status: 200, text: 'x' }))).not.toThrow();
    expect(() => validator.check(answer({ status: 502, contentType: null, requestId: null, text: '' }))).not.toThrow();
    expect(() => validator.check(answer({ status: 502, contentType: 'text/html', text: '<html>' }))).toThrow(/content-type text\/html is not documented/);
  });

  it('reads the checked-in openapi.json: an order without its amount disagrees', () => {
    const order = {
      order_id: 'A-1',
      direction: 'incoming',
      status: 'PENDING',
      sub_status: 'awaiting_agent',
      fee: 1,
      currency: 'RUB',
      country: 'RU',
      method: 'card',
      callback_url: 'https://shop.example/cb',
      failure_reason: null,
      metadata: { cart_id: 'C-1' },
      expires_at: '2026-01-01T00:30:00.000Z',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const status = answer({ path: '/v2/payments/status/A-1' });
    expect(() => merchantApiValidator().check({ ...status, text: JSON.stringify({ ...order, amount: 15 }) })).not.toThrow();
    expect(() => merchantApiValidator().check({ ...status, text: JSON.stringify(order) })).toThrow(/getPaymentStatus.*must have required property 'amount'/);
  });

  it("reads the checked-in openapi.json: metadata is required, a map of strings, and a pay-in's return_url a string or null", () => {
    const order = {
      order_id: 'A-1',
      direction: 'incoming',
      status: 'SUCCEEDED',
      sub_status: null,
      amount: 15,
      fee: 1,
      currency: 'RUB',
      country: 'RU',
      method: 'card',
      callback_url: 'https://shop.example/cb',
      return_url: 'https://shop.example/back',
      failure_reason: null,
      metadata: {},
      expires_at: '2026-01-01T00:30:00.000Z',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const check = (body: object) => () => merchantApiValidator().check({ ...answer({ path: '/v2/payments/status/A-1' }), text: JSON.stringify(body) });
    expect(check(order)).not.toThrow();
    expect(check({ ...order, return_url: null })).not.toThrow();
    expect(check({ ...order, return_url: 7 })).toThrow(/return_url must be string/);
    const { metadata: _metadata, ...withoutMetadata } = order;
    expect(check(withoutMetadata)).toThrow(/must have required property 'metadata'/);
    expect(check({ ...order, metadata: { count: 3 } })).toThrow(/metadata\/count must be string/);
    expect(check({ ...order, metadata: Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v'])) })).toThrow(
      /metadata must NOT have more than 20 properties/,
    );
  });
});
