import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { runInSpan, startTracing } from '@mp/shared-telemetry';
import { createEnvelope, parseEnvelope, PoisonMessageError } from './envelope';
import { classifyError } from './error-classification';

describe('envelope', () => {
  const valid = createEnvelope({ type: 'Thing', schemaVersion: 1, source: 'test', subject: 'thing:1', data: { a: 1 }, correlationId: 'req_1' });

  it('records the trace context it is made in (an optional field, no schema version change), and none outside a span', async () => {
    const provider = startTracing('envelope-test', {}, [new SimpleSpanProcessor(new InMemorySpanExporter())]);
    const traced = await runInSpan('handle', SpanKind.CONSUMER, {}, {}, {}, async () =>
      createEnvelope({ type: 'Thing', schemaVersion: 1, source: 'test', subject: 'thing:1', data: {}, correlationId: 'req_1' }),
    );
    await provider?.shutdown();
    expect(traced.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(traced.schemaVersion).toBe(1);
    expect(parseEnvelope(JSON.stringify(traced)).traceparent).toBe(traced.traceparent);
    expect(valid).not.toHaveProperty('traceparent');
  });

  it('round-trips through JSON', () => {
    expect(parseEnvelope(Buffer.from(JSON.stringify(valid)))).toEqual(valid);
    expect(valid.causationId).toBeNull();
  });

  it.each([
    ['null value', null],
    ['not JSON', '{oops'],
    ['an array', '[]'],
    ['a bad id', JSON.stringify({ ...valid, id: 'x' })],
    ['no type', JSON.stringify({ ...valid, type: '' })],
    ['a fractional schema version', JSON.stringify({ ...valid, schemaVersion: 1.5 })],
    ['no data', JSON.stringify({ ...valid, data: undefined })],
  ])('treats %s as poison', (_name, raw) => {
    expect(() => parseEnvelope(raw === null ? null : Buffer.from(raw))).toThrow(PoisonMessageError);
  });
});

describe('classifyError', () => {
  it.each([
    [new PoisonMessageError('x'), 'poison'],
    [Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), 'transient'],
    [Object.assign(new Error('serialization'), { code: '40001' }), 'transient'],
    [Object.assign(new Error('admin shutdown'), { code: '57P01' }), 'transient'],
    [{ driverError: { code: '08006' } }, 'transient'],
    [new Error('Connection terminated unexpectedly'), 'transient'],
    [Object.assign(new Error('deadlock detected'), { code: '40P01' }), 'transient'],
    [{ message: 'could not serialize access', driverError: { code: '40001' } }, 'transient'],
    [Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }), 'transient'],
    [new Error('Client has encountered a connection error and is not queryable'), 'transient'],
    [new Error('Connection terminated due to connection timeout', { cause: Object.assign(new Error('connect'), { code: 'ETIMEDOUT' }) }), 'transient'],
    [new Error('query failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) }), 'transient'],
    [Object.assign(new Error('connect ECONNREFUSED'), { errors: [Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })] }), 'transient'],
    [Object.assign(new Error('unique violation'), { code: '23505' }), 'unknown'],
    [new TypeError('bug'), 'unknown'],
  ])('classifies %s as %s', (error, kind) => expect(classifyError(error)).toBe(kind));
});
